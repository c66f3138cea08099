"""``python -m autograder.i18n update|check [LANGUAGE ...]``: the translator's two commands.

``update`` brings each catalog in step with the code (new ids untranslated, unused ids
dropped, translations kept); ``check`` lists what is still missing or wrong and exits 1 when
anything is. Without a language, every translated language of the project.
"""

from __future__ import annotations

import argparse
import sys

from autograder.i18n.maintain import check_language, update_catalogs
from autograder.languages import TRANSLATED_LANGUAGES


def main(argv: list[str] | None = None) -> int:
    """Run ``update`` or ``check`` on the catalogs named (all by default)."""
    parser = argparse.ArgumentParser(prog="python -m autograder.i18n", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("update", "check"))
    parser.add_argument("languages", nargs="*", help=f"languages to work on (default: {' '.join(TRANSLATED_LANGUAGES)})")
    options = parser.parse_args(argv)
    unknown = [code for code in options.languages if code not in TRANSLATED_LANGUAGES]
    if unknown:
        parser.error(f"no catalog for {', '.join(unknown)}: the translated languages are {', '.join(TRANSLATED_LANGUAGES)}")
    languages = options.languages or TRANSLATED_LANGUAGES
    if options.action == "update":
        for path, untranslated in update_catalogs(languages):
            print(f"{path}: {untranslated} message(s) to translate")
        return 0
    failed = False
    for language in languages:
        problems = check_language(language)
        print("\n".join(problems) if problems else f"{language}: every message is translated and checked")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
