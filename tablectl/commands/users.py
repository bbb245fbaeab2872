"""`tablectl users add|remove|list`: who may use the table's API and display."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import Any

from tablectl.auth import PEOPLE, ROLES, UsersError, UsersFile, check_name
from tablectl.config import DEFAULT_USERS, ConfigError, load_config

MIN_PASSWORD = 10


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "users", help="users and device tokens of the API and the pit display",
        description="Manage who may write to the table: people (dealer, pit, admin) log in "
                    "with a password, devices send a bearer token. The daemon reads the "
                    "file again when it changes.")
    parser.add_argument("--users", metavar="PATH", default=None,
                        help=f"the users file (default: [api] users of --config, else "
                             f"{DEFAULT_USERS})")
    parser.add_argument("--config", metavar="PATH", help="the table's config file")
    commands = parser.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    add = commands.add_parser("add", help="add a user, or replace a user's password or token")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, required=True)
    add.add_argument("--password-stdin", action="store_true",
                     help="read the password from standard input (else asked twice)")
    add.add_argument("--expires-days", type=float, default=None, metavar="DAYS",
                     help="a device token's lifetime (default: until removed)")
    add.set_defaults(func=_add)
    remove = commands.add_parser("remove", help="remove a user (their sessions end)")
    remove.add_argument("name")
    remove.set_defaults(func=_remove)
    listing = commands.add_parser("list", help="list the users and their roles")
    listing.set_defaults(func=_list)


def _file(args: argparse.Namespace) -> UsersFile:
    if args.users is not None:
        return UsersFile(args.users)
    if args.config is not None:
        return UsersFile(load_config(args.config).api.users)
    return UsersFile(DEFAULT_USERS)


def _add(args: argparse.Namespace) -> int:
    problem = check_name(args.name)
    if problem is not None:
        return _fail(problem)
    try:
        users = _file(args)
        if args.role in PEOPLE:
            password = _password(args.password_stdin)
            if len(password) < MIN_PASSWORD:
                return _fail(f"a password has at least {MIN_PASSWORD} characters")
            users.add_person(args.name, args.role, password)
            print(f"{args.name} ({args.role}) can log in at the pit display")
        else:
            token = users.add_device(args.name, args.role, args.expires_days)
            print(f"{args.name} ({args.role}): its bearer token, shown only now:")
            print(token)
    except (UsersError, ConfigError, OSError) as error:
        return _fail(str(error))
    return 0


def _password(from_stdin: bool) -> str:
    if from_stdin or not os.isatty(0):
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise UsersError("the two passwords differ")
    return first


def _remove(args: argparse.Namespace) -> int:
    try:
        if not _file(args).remove(args.name):
            return _fail(f"there is no user {args.name!r}")
    except (UsersError, ConfigError, OSError) as error:
        return _fail(str(error))
    print(f"{args.name} removed")
    return 0


def _list(args: argparse.Namespace) -> int:
    try:
        users = _file(args).load()
    except (UsersError, ConfigError) as error:
        return _fail(str(error))
    if not users:
        print("no users: add one with `tablectl users add NAME --role pit`")
    for name, entry in sorted(users.items()):
        how = "password" if "password" in entry else "token"
        print(f"{name:24} {entry['role']:8} {how}")
    return 0


def _fail(message: str) -> int:
    print(f"tablectl users: {message}", file=sys.stderr)
    return 2
