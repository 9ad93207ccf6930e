"""Insert the hidden macro cell (tools/macros.md) after a chapter's jupytext header.

Usage: python tools/add_macros.py chapters/NN_topic.md ...   (idempotent)
"""
import sys
from pathlib import Path

CELL = (Path(__file__).parent / "macros.md").read_text()

for name in sys.argv[1:]:
    page = Path(name)
    text = page.read_text()
    if '+++ {"tags": ["remove-cell"]}\n\n$$\n\\newcommand' in text:
        continue
    _, header, body = text.split("---\n", 2)
    page.write_text(f"---\n{header}---\n\n{CELL}\n{body.lstrip()}")
    print("macros added to", page)
