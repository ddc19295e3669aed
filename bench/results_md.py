"""results_md.py -- named sections of a published results file
(bench/results/RESULTS-*.md), so that several reports can write one file:
each owns the text between `<!-- section NAME -->` and `<!-- end NAME -->`,
and a report that rewrites the whole file keeps the sections of the others.
"""
import os
import re


def _pattern(name=r"[\w-]+"):
    return re.compile(r"<!-- section (%s) -->\n.*?<!-- end \1 -->\n" % name, re.S)


def sections(path):
    """The marked sections of the file at path (text with their markers), in order."""
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [m.group(0) for m in _pattern().finditer(f.read())]


def put_section(path, name, body):
    """Replace section `name` of the file with body (appending it when absent)."""
    text = ""
    if os.path.isfile(path):
        with open(path) as f:
            text = f.read()
    block = f"<!-- section {name} -->\n{body.rstrip()}\n<!-- end {name} -->\n"
    pat = _pattern(re.escape(name))
    if pat.search(text):
        text = pat.sub(lambda _: block, text, count=1)
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block
    tmp = path + ".part"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
