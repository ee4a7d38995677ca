#!/bin/sh
# Regenerate the README gallery: each lesson's headline figure (its `headline=` in the page's declaration),
# exported by the command line at blog size (1200×675, light theme), named after the lesson's page, in the
# order of the course. A new lesson appears here by itself. Run from anywhere: sh docs/gallery/make.sh
set -eu
cd "$(dirname "$0")/../.."
python -m posviz lessons --json | python -c '
import json, sys
for lesson in json.load(sys.stdin)["lessons"]:
    print(lesson["headline"], lesson["page"].removeprefix("pages/").removesuffix(".py").lower())
' | while read -r name file; do
    python -m posviz export "$name" --width 1200 --height 675 -o "docs/gallery/$file.png"
done
