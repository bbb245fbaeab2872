"""tablectl/commands package."""
