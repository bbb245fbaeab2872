"""The fonts that font-drawn training decks are drawn with, all from Debian packages.

`FACES` are the faces rank glyphs are drawn with (one per deck), `SUIT_FACES`
the faces whose suit signs (U+2660-2667) index and centre pips may be drawn
with. Fonts are found by their packaged path, installed with `apt-get` when
missing, and each one's licence is read from the package's copyright file.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

FONT_ROOT = Path("/usr/share/fonts")
TEXGYRE_ROOT = Path("/usr/share/texmf/fonts/opentype/public/tex-gyre")
DOC_ROOT = Path("/usr/share/doc")


@dataclass(frozen=True)
class FontFace:
    """One font file of a Debian package, and the kind of letters it draws."""

    package: str
    path: Path
    kind: str  # serif, sans, condensed, rounded, slab, mono, script (italic is in the name)

    @property
    def name(self) -> str:
        """A short name from the file name: `DejaVuSans-Bold.ttf` -> `dejavusans-bold`."""
        return re.sub(r"[^a-z0-9]+", "-", self.path.stem.lower()).strip("-")

    @property
    def installed(self) -> bool:
        return self.path.is_file()


def _faces(package: str, folder: Path, kind: str, *files: str) -> list[FontFace]:
    return [FontFace(package, folder / f, kind) for f in files]


_T, _O = FONT_ROOT / "truetype", FONT_ROOT / "opentype"
FACES: tuple[FontFace, ...] = tuple([
    *_faces("fonts-dejavu-core", _T / "dejavu", "sans", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    *_faces("fonts-dejavu-core", _T / "dejavu", "serif", "DejaVuSerif-Bold.ttf"),
    *_faces("fonts-dejavu-extra", _T / "dejavu", "condensed", "DejaVuSansCondensed-Bold.ttf",
            "DejaVuSerifCondensed-Bold.ttf"),
    *_faces("fonts-dejavu-extra", _T / "dejavu", "sans", "DejaVuSans-BoldOblique.ttf"),
    *_faces("fonts-liberation", _T / "liberation", "serif", "LiberationSerif-Regular.ttf",
            "LiberationSerif-Bold.ttf", "LiberationSerif-BoldItalic.ttf"),
    *_faces("fonts-liberation", _T / "liberation", "sans", "LiberationSans-Bold.ttf",
            "LiberationSans-Regular.ttf"),
    *_faces("fonts-liberation", _T / "liberation", "condensed", "LiberationSansNarrow-Bold.ttf"),
    *_faces("fonts-freefont-ttf", _T / "freefont", "serif", "FreeSerif.ttf", "FreeSerifBold.ttf",
            "FreeSerifItalic.ttf"),
    *_faces("fonts-freefont-ttf", _T / "freefont", "sans", "FreeSansBold.ttf"),
    *_faces("fonts-freefont-ttf", _T / "freefont", "slab", "FreeMonoBold.ttf"),
    *_faces("fonts-urw-base35", _O / "urw-base35", "serif", "NimbusRoman-Bold.otf",
            "NimbusRoman-Regular.otf", "C059-Roman.otf", "C059-Bold.otf", "P052-Bold.otf",
            "P052-Italic.otf", "URWBookman-Light.otf", "URWBookman-Demi.otf",
            "URWBookman-DemiItalic.otf"),
    *_faces("fonts-urw-base35", _O / "urw-base35", "sans", "NimbusSans-Regular.otf",
            "NimbusSans-Bold.otf", "NimbusSans-Italic.otf", "URWGothic-Book.otf",
            "URWGothic-Demi.otf"),
    *_faces("fonts-urw-base35", _O / "urw-base35", "condensed", "NimbusSansNarrow-Bold.otf"),
    *_faces("fonts-urw-base35", _O / "urw-base35", "slab", "NimbusMonoPS-Bold.otf"),
    *_faces("fonts-urw-base35", _O / "urw-base35", "script", "Z003-MediumItalic.otf"),
    *_faces("fonts-crosextra-caladea", _T / "crosextra", "serif", "Caladea-Bold.ttf",
            "Caladea-Italic.ttf"),
    *_faces("fonts-crosextra-carlito", _T / "crosextra", "sans", "Carlito-Regular.ttf",
            "Carlito-Bold.ttf"),
    *_faces("fonts-linuxlibertine", _O / "linux-libertine", "serif", "LinLibertine_R.otf",
            "LinLibertine_RB.otf"),
    *_faces("fonts-linuxlibertine", _O / "linux-libertine", "sans", "LinBiolinum_RB.otf"),
    *_faces("fonts-ebgaramond", _O / "ebgaramond", "serif", "EBGaramond12-Regular.otf"),
    *_faces("fonts-cantarell", _O / "cantarell", "sans", "Cantarell-Bold.otf"),
    *_faces("fonts-open-sans", _T / "open-sans", "sans", "OpenSans-Semibold.ttf",
            "OpenSans-ExtraBold.ttf"),
    *_faces("fonts-open-sans", _T / "open-sans", "condensed", "OpenSans-CondBold.ttf"),
    *_faces("fonts-roboto-unhinted", _T / "roboto/unhinted/RobotoTTF", "sans",
            "Roboto-Medium.ttf", "Roboto-Black.ttf", "Roboto-BoldItalic.ttf"),
    *_faces("fonts-roboto-unhinted", _T / "roboto/unhinted", "condensed",
            "RobotoCondensed-Bold.ttf"),
    *_faces("fonts-comfortaa", _T / "comfortaa", "rounded", "Comfortaa-Bold.ttf"),
    *_faces("fonts-quicksand", _T / "quicksand", "rounded", "Quicksand-Bold.ttf"),
    *_faces("fonts-lato", _T / "lato", "sans", "Lato-Bold.ttf", "Lato-Black.ttf"),
    *_faces("fonts-cabin", _O / "cabin", "sans", "Cabin-SemiBold.otf"),
    *_faces("fonts-courier-prime", _O / "courier-prime", "slab", "Courier Prime Bold.otf"),
    *_faces("fonts-courier-prime", _O / "courier-prime", "mono", "Courier Prime Sans Bold.otf"),
    *_faces("fonts-noto-mono", _T / "noto", "mono", "NotoSansMono-Bold.ttf"),
    *_faces("fonts-texgyre", TEXGYRE_ROOT, "serif", "texgyretermes-bold.otf",
            "texgyrepagella-regular.otf", "texgyrebonum-bold.otf", "texgyreschola-regular.otf"),
    *_faces("fonts-texgyre", TEXGYRE_ROOT, "sans", "texgyreadventor-bold.otf",
            "texgyreheros-regular.otf"),
    *_faces("fonts-texgyre", TEXGYRE_ROOT, "condensed", "texgyreheroscn-bold.otf"),
    *_faces("fonts-dancingscript", _O / "dancingscript", "script", "DancingScript-Bold.otf"),
    *_faces("fonts-gfs-didot", _O / "didot", "serif", "GFSDidotBold.otf"),
    *_faces("fonts-sil-andika", _T / "andika", "sans", "Andika-Bold.ttf"),
    *_faces("fonts-stix", _O / "stix", "serif", "STIXGeneral-Bold.otf"),
    # Book and display faces of other foundries: more shapes of each numeral and letter.
    *_faces("fonts-adf-accanthis", _T / "adf", "serif", "AccanthisADFStd-Bold.otf"),
    *_faces("fonts-adf-baskervald", _T / "adf", "serif", "BaskervaldADFStd-Heavy.otf"),
    *_faces("fonts-adf-berenis", _T / "adf", "serif", "BerenisADFPro-Bold.otf"),
    *_faces("fonts-adf-gillius", _T / "adf", "sans", "GilliusADF-Bold.otf"),
    *_faces("fonts-adf-ikarius", _T / "adf", "serif", "IkariusADFStd-Bold.otf"),
    *_faces("fonts-adf-libris", _T / "adf", "sans", "LibrisADFStd-Bold.otf"),
    *_faces("fonts-adf-mekanus", _T / "adf", "sans", "MekanusADFStd-Bold.otf"),
    *_faces("fonts-adf-romande", _T / "adf", "serif", "RomandeADFStd-DemiBold.otf"),
    *_faces("fonts-adf-switzera", _T / "adf", "sans", "SwitzeraADF-Bold.otf"),
    *_faces("fonts-adf-tribun", _T / "adf", "serif", "TribunADFStd-Bold.otf"),
    *_faces("fonts-adf-universalis", _T / "adf", "sans", "UniversalisADFStd-Bold.otf"),
    *_faces("fonts-oldstandard", _T / "fonts-oldstandard", "serif", "OldStandard-Bold.ttf"),
    *_faces("fonts-goudybookletter", _O / "sortsmill", "serif", "GoudyBookletter1911.otf"),
    *_faces("fonts-cmu", _T / "cmu", "serif", "cmunbx.ttf"),
    *_faces("fonts-junicode", _O / "junicode", "serif", "JunicodeTwoBeta-Bold.otf"),
    *_faces("fonts-yanone-kaffeesatz", _O / "yanone-kaffeesatz", "condensed",
            "YanoneKaffeesatz-Bold.otf"),
    *_faces("fonts-league-spartan", _O / "league-spartan", "sans", "LeagueSpartan-Bold.otf"),
    *_faces("fonts-tuffy", _T / "tuffy", "sans", "Tuffy_Bold.ttf"),
    *_faces("fonts-radisnoir", _O / "radisnoir", "sans", "RadisSans-medium.otf"),
    *_faces("fonts-sil-charis", _T / "charis", "serif", "CharisSIL-Bold.ttf"),
    *_faces("fonts-gfs-artemisia", _O / "artemisia", "serif", "GFSArtemisiaBold.otf"),
    *_faces("fonts-gfs-neohellenic", _O / "neohellenic", "sans", "GFSNeohellenicBold.otf"),
    *_faces("fonts-dustin", _T / "dustin", "serif", "Dustismo_Roman_Bold.ttf"),
    *_faces("fonts-dustin", _T / "dustin", "sans", "Dustismo.ttf"),
    *_faces("fonts-inter", _O / "inter", "sans", "Inter-Bold.otf"),
    *_faces("fonts-sil-gentiumplus", _T / "gentiumplus", "serif", "GentiumPlus-Bold.ttf"),
    *_faces("fonts-averia-serif-gwf", _T / "averia-gwf", "serif", "AveriaSerifGWF-Bold.ttf"),
    *_faces("fonts-averia-sans-gwf", _T / "averia-gwf", "sans", "AveriaSansGWF-Bold.ttf"),
    *_faces("fonts-lobster", _O / "lobster", "script", "lobster.otf"),
    # A third catalogue (decks 98 on): faces of further foundries and of signage, school,
    # comic and brush lettering, for numerals and court letters of still more shapes.
    *_faces("fonts-cardo", _T / "cardo", "serif", "Cardob101.ttf"),
    *_faces("fonts-arapey", _O / "arapey", "serif", "Arapey-Black.otf"),
    *_faces("fonts-century-catalogue", _T / "fonts-century-catalogue", "serif",
            "Century-Catalogue.ttf"),
    *_faces("fonts-elstob", _O / "elstob", "serif", "ElstobD-14ptBold.otf"),
    *_faces("fonts-fanwood", _T / "fanwood", "serif", "FanwoodText.otf"),
    *_faces("fonts-prociono", _O / "fonts-prociono", "serif", "Prociono.otf"),
    *_faces("fonts-quattrocento", _O / "quattrocento", "serif", "Quattrocento-Regular.otf"),
    *_faces("fonts-vollkorn", _T / "vollkorn", "serif", "Vollkorn-Bold.ttf",
            "Vollkorn-BlackItalic.ttf"),
    *_faces("fonts-yrsa-rasa", _T / "fonts-yrsa-rasa", "serif", "Yrsa-Bold.ttf"),
    *_faces("fonts-paratype", _T / "paratype", "serif", "PTF75F.ttf"),
    *_faces("fonts-paratype", _T / "paratype", "sans", "PTS75F.ttf"),
    *_faces("fonts-paratype", _T / "paratype", "condensed", "PTN77F.ttf"),
    *_faces("fonts-roboto-slab", _O / "roboto/slab", "slab", "RobotoSlab-Bold.otf"),
    *_faces("fonts-lindenhill", _T / "lindenhill", "serif", "LindenHill.otf"),
    *_faces("fonts-noto-core", _T / "noto", "serif", "NotoSerif-Bold.ttf",
            "NotoSerifDisplay-BoldItalic.ttf"),
    *_faces("fonts-noto-core", _T / "noto", "sans", "NotoSans-Bold.ttf"),
    *_faces("fonts-essays1743", _T / "essays1743", "serif", "Essays1743-Bold.ttf"),
    *_faces("fonts-georgewilliams", _T / "fonts-georgewilliams", "serif", "CaslonBold.ttf"),
    *_faces("fonts-lg-aboriginal", _T / "aboriginal", "serif", "AboriginalSerifBOLD943.ttf"),
    *_faces("fonts-lg-aboriginal", _T / "aboriginal", "sans", "AboriginalSansBOLD9433.ttf"),
    *_faces("fonts-solide-mirage", _O / "solid-mirage", "serif", "SolideMirageEtroit.otf"),
    *_faces("fonts-linex", _T / "linex", "sans", "Jara_Bold.ttf", "Quercus_Bold.ttf"),
    *_faces("fonts-clear-sans", _T / "clear-sans", "sans", "ClearSans-Bold.ttf"),
    *_faces("fonts-b612", _O / "b612", "sans", "B612-Bold.otf"),
    *_faces("fonts-beteckna", _T / "beteckna", "sans", "BetecknaGS-Bold.ttf"),
    *_faces("fonts-beteckna", _T / "beteckna", "condensed", "BetecknaGSCondensed-Bold.ttf"),
    *_faces("fonts-dosis", _O / "dosis", "rounded", "Dosis-Bold.otf"),
    *_faces("fonts-karla", _T / "karla", "sans", "Karla-Bold.otf"),
    *_faces("fonts-manrope", _T / "manrope", "sans", "Manrope-Bold.ttf"),
    *_faces("fonts-opendin", _T / "opendin", "condensed", "OSP-DIN.ttf"),
    *_faces("fonts-sora", _O / "sora", "sans", "Sora-Bold.otf"),
    *_faces("fonts-play", _O / "play", "sans", "Play-Bold.otf"),
    *_faces("fonts-tiresias", _T / "tiresias", "sans", "tiresias_infofont_bold.ttf"),
    *_faces("fonts-routed-gothic", _T / "routed-gothic", "sans", "routed-gothic.ttf"),
    *_faces("fonts-national-park", _O / "national-park", "sans", "NationalPark-Heavy.otf"),
    *_faces("fonts-roadgeek", _T / "roadgeek", "condensed", "RG2014D.ttf"),
    *_faces("fonts-junction", _O / "junction", "sans", "Junction.otf"),
    *_faces("fonts-mph-2b-damase", _T / "mph-2b-damase", "sans", "damase.ttf"),
    *_faces("fonts-lemonada", _O / "lemonada", "rounded", "Lemonada-Bold.otf"),
    *_faces("fonts-karmilla", _T / "karmilla", "sans", "Karmilla-Bold.ttf"),
    *_faces("fonts-klaudia-berenika", _T / "klaudia-berenika", "sans", "Berenika-Bold.ttf"),
    *_faces("fonts-eurofurence", _T / "eurofurence", "rounded", "eurof75.ttf"),
    *_faces("fonts-osifont", _T / "osifont", "sans", "osifont.ttf"),
    *_faces("fonts-compagnon", _O / "compagnon", "script", "Compagnon-Bold.otf"),
    *_faces("fonts-comic-neue", _O / "comic-neue", "script", "ComicNeue-Bold.otf"),
    *_faces("fonts-kaushanscript", _O / "kaushanscript", "script", "KaushanScript-Regular.otf"),
    *_faces("fonts-leckerli-one", _T / "leckerli-one", "script", "LeckerliOne-Regular.ttf"),
    *_faces("fonts-rufscript", _T / "rufscript", "script", "Rufscript010.ttf"),
    *_faces("fonts-staypuft", _T / "staypuft", "script", "StayPuft.ttf"),
    *_faces("fonts-tomsontalks", _T / "tomsontalks", "script", "TomsonTalks.ttf"),
    *_faces("fonts-summersby", _T / "summersby", "script", "summersby.ttf"),
    *_faces("fonts-sjfonts", _T / "sjfonts", "script", "SteveHand.ttf"),
    *_faces("fonts-havana", _O / "havana", "script", "Havana-Regular.otf"),
    *_faces("fonts-cherrybomb", _O / "cherrybomb", "rounded", "CherryBomb-Regular.otf"),
    *_faces("fonts-reggae", _T / "reggae", "sans", "ReggaeOne-Regular.ttf"),
])

# Faces no training deck is drawn with: decks of these (`fontval-` decks, drawn by
# `tools/render_font_decks.py --validation`) measure how the networks read numerals
# and letters of shapes they never saw, without touching the held-out real decks.
VALIDATION_FACES: tuple[FontFace, ...] = tuple([
    *_faces("fonts-adf-irianis", _T / "adf", "serif", "IrianisADFStd-Bold.otf"),
    *_faces("fonts-adf-verana", _T / "adf", "serif", "Verana-Bold.otf"),
    *_faces("fonts-gfs-theokritos", _O / "theokritos", "serif", "GFSTheokritos.otf"),
    *_faces("fonts-humor-sans", _T / "humor-sans", "script", "Humor-Sans.ttf"),
    *_faces("fonts-jura", _O / "jura", "sans", "Jura-Bold.otf"),
    *_faces("fonts-bebas-neue", _O / "bebas-neue", "condensed", "BebasNeue-Bold.otf"),
    *_faces("fonts-lobstertwo", _O / "lobstertwo", "script", "LobsterTwo-Bold.otf"),
])


@dataclass(frozen=True)
class SuitFace:
    """A font whose suit signs are drawn as pips; `outline` has the white ♤♡♢♧ too."""

    face: FontFace
    outline: bool


# Not here: monospaced faces with a dotted zero (no card prints one), and the URW text
# faces whose spade and club stems are apart from the sign (read as two glyphs).
SUIT_FACES: tuple[SuitFace, ...] = (
    SuitFace(FontFace("fonts-dejavu-core", _T / "dejavu/DejaVuSans.ttf", "symbols"), True),
    SuitFace(FontFace("fonts-dejavu-core", _T / "dejavu/DejaVuSerif.ttf", "symbols"), False),
    SuitFace(FontFace("fonts-freefont-ttf", _T / "freefont/FreeSerif.ttf", "symbols"), True),
    SuitFace(FontFace("fonts-freefont-ttf", _T / "freefont/FreeSans.ttf", "symbols"), True),
    SuitFace(FontFace("fonts-urw-base35", FONT_ROOT / "type1/urw-base35/StandardSymbolsPS.t1",
                      "symbols"), False),
    SuitFace(FontFace("fonts-linuxlibertine", _O / "linux-libertine/LinLibertine_R.otf",
                      "symbols"), False),
    SuitFace(FontFace("fonts-stix", _O / "stix/STIXGeneral-Regular.otf", "symbols"), True),
)

PACKAGES: tuple[str, ...] = tuple(sorted({f.package for f in (*FACES, *VALIDATION_FACES)}
                                         | {s.face.package for s in SUIT_FACES}))


# --- packages ----------------------------------------------------------------------------------

def package_version(package: str) -> str | None:
    """The installed version of a Debian package, None when it is not installed."""
    if not shutil.which("dpkg-query"):
        return None
    done = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", package],
                          capture_output=True, text=True, check=False)
    status, _, version = done.stdout.partition("\t")
    return version if "install ok installed" in status else None


def missing_packages(packages: tuple[str, ...] = PACKAGES) -> list[str]:
    return [p for p in packages if package_version(p) is None]


def ensure_packages(install: bool = True, packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Install the missing font packages (when allowed); returns those still missing."""
    missing = missing_packages(packages)
    if not (missing and install and shutil.which("apt-get")):
        return missing
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for refresh in (False, True):  # on a fresh machine the package lists come first
        if refresh:
            subprocess.run([*sudo, "apt-get", "update", "-q"], check=False, env=env,
                           stdout=subprocess.DEVNULL)
        subprocess.run([*sudo, "apt-get", "install", "-y", "-q", *missing], check=False,
                       env=env, stdout=subprocess.DEVNULL)
        missing = missing_packages(packages)
        if not missing:
            break
    return missing


# --- licences ----------------------------------------------------------------------------------

# Copyright files that are not machine-readable: the licence their text states.
_FREE_FORM = (("SIL Open Font License, Version 1.1", "OFL-1.1"),
              ("SIL Open Font License, Version 1.0", "OFL-1.0"),
              ("GNU General Public License v.2 with the exceptions",
               "GPL-2 with font embedding exception"),
              ("distribute this software under the terms of the GNU General Public License",
               "GPL-2"),
              ("licensed under the GNU General Public License, Version 3 with the font "
               "exception", "GPL-3 with font exception"),
              ("licensed under the GNU General Public License but with the following "
               "exception", "GPL-2 with font exception"),
              ("GNU General Public License as published by the Free Software Foundation; "
               "either version 2 of the License, or (at your option) any later version",
               "GPL-2+"),
              ("License: Public Domain", "public-domain"))


def _paragraphs(text: str) -> list[dict[str, str]]:
    out = []
    for block in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and key:
                if key == "Files":  # a licence's continuation lines are its text: not kept
                    fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        out.append(fields)
    return out


@lru_cache(maxsize=64)
def font_licence(package: str, path: Path) -> str:
    """The licence the package's copyright file gives for the font file `path`."""
    copyright_file = DOC_ROOT / package / "copyright"
    try:
        text = copyright_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown (no copyright file)"
    licence = None
    for fields in _paragraphs(text):  # DEP-5: the last paragraph whose Files match wins
        globs = fields.get("Files", "").split()
        if any(fnmatch.fnmatch(str(path), g) or fnmatch.fnmatch(str(path), "*/" + g)
               for g in globs) and fields.get("License"):
            licence = fields["License"].strip()
    if licence:
        return licence
    for phrase, name in _FREE_FORM:
        if phrase in " ".join(text.split()):
            return name
    return "see " + str(copyright_file)
