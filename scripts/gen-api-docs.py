#!/usr/bin/env python3
"""Write docs/API.md, the API reference, from the doc comments of the public headers.

    scripts/gen-api-docs.py            regenerate docs/API.md
    scripts/gen-api-docs.py --check    exit 1 if a TS_API function, a public type or
                                       one of its members has no doc comment, or if
                                       docs/API.md differs from what the headers give
    scripts/gen-api-docs.py --stdout   print the reference instead of writing it

Reads include/tessera.h and include/tessera/*.h. Doc comments are /** ... */ before a
declaration and /**< ... */ after a member (Doxygen style); @brief, @p, @c, @param,
@return, @note, @see, @code/@endcode, @name with /**@{*/ ... /**@}*/ groups and ::name
are understood. The parser knows C declarations, not all of C: what it cannot classify
it leaves out (or, when documented, lists under "Other declarations").
"""

import argparse
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "include")
OUTPUT = os.path.join(ROOT, "docs", "API.md")
IDENT = re.compile(r"[A-Za-z_]\w*")


# ---- lexing ----------------------------------------------------------------------


class Token:
    """One piece of a header: kind is doc, mdoc (member doc), gopen, gclose, pp or code."""

    def __init__(self, kind, text, line):
        self.kind = kind
        self.text = text
        self.line = line

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r}, {self.line})"


def lex(text):
    """Split header text into comments, preprocessor lines and code."""
    tokens = []
    code = []
    code_line = 1
    i = 0
    line = 1
    at_line_start = True
    n = len(text)

    def flush_code():
        if code:
            tokens.append(Token("code", "".join(code), code_line))
            code.clear()

    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            body = text[i:end]
            start_line = line
            line += body.count("\n")
            i = end
            inner = body[2:-2] if body.endswith("*/") else body[2:]
            stripped = inner.strip()
            if stripped in ("*@{", "*@{*", "* @{", "*@{ ") or re.fullmatch(r"\*\s*@\{\s*\*?", stripped):
                flush_code()
                tokens.append(Token("gopen", "", start_line))
            elif re.fullmatch(r"\*\s*@\}\s*\*?", stripped):
                flush_code()
                tokens.append(Token("gclose", "", start_line))
            elif inner.startswith("*<") or inner.startswith("!<"):
                flush_code()
                tokens.append(Token("mdoc", inner[2:], start_line))
            elif (inner.startswith("*") or inner.startswith("!")) and inner.strip("*") != "":
                flush_code()
                tokens.append(Token("doc", inner[1:], start_line))
            else:
                code.append(" ")  # a plain comment separates tokens
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            body = text[i + 2 : end]
            if body.startswith("/<") or body.startswith("!<"):
                flush_code()
                tokens.append(Token("mdoc", body[2:], line))
            i = end
            continue
        if c == "#" and at_line_start:
            flush_code()
            start_line = line
            directive = []
            while i < n:
                if text.startswith("/*", i):
                    end = text.find("*/", i + 2)
                    end = n if end < 0 else end + 2
                    line += text[i:end].count("\n")
                    i = end
                    directive.append(" ")
                    continue
                if text.startswith("//", i):
                    while i < n and text[i] != "\n":
                        i += 1
                    continue
                if text.startswith("\\\n", i):
                    directive.append(" ")
                    i += 2
                    line += 1
                    continue
                if text[i] == "\n":
                    break
                directive.append(text[i])
                i += 1
            tokens.append(Token("pp", " ".join("".join(directive).split()), start_line))
            continue
        if c in "\"'":
            end = i + 1
            while end < n and text[end] != c:
                end += 2 if text[end] == "\\" else 1
            if not code:
                code_line = line
            code.append(text[i : end + 1])
            i = end + 1
            at_line_start = False
            continue
        if not code:
            code_line = line
        code.append(c)
        if c == "\n":
            line += 1
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        i += 1
    flush_code()
    return tokens


# ---- parsing ---------------------------------------------------------------------


class Item:
    """A documented (or undocumented) declaration of a header."""

    def __init__(self, kind, name, decl, doc, line, members=None):
        self.kind = kind  # function, enum, struct, union, opaque, funcptr, typedef, macro, other
        self.name = name
        self.decl = decl
        self.doc = doc
        self.line = line
        self.members = members or []
        self.group = None


def squash(text):
    return " ".join(text.split())


def parse_members(segments, separator):
    """Members of the first {...} body, each with its /**< */ or /** */ doc."""
    members = []
    current = []
    current_doc = None
    pre_doc = None
    depth = 0
    parens = 0
    started = False
    done = False
    last = None

    def push():
        nonlocal current, current_doc, pre_doc, last
        decl = squash("".join(current))
        if decl:
            member = {"decl": decl, "doc": current_doc or pre_doc}
            members.append(member)
            last = member
        current = []
        current_doc = None
        pre_doc = None

    for kind, text in segments:
        if done:
            break
        if kind == "code":
            for ch in text:
                if ch == "{":
                    depth += 1
                    if depth == 1 and not started:
                        started = True
                        continue
                elif ch == "}":
                    depth -= 1
                    if depth == 0 and started:
                        push()
                        done = True
                        break
                elif ch == "(":
                    parens += 1
                elif ch == ")":
                    parens -= 1
                if not started:
                    continue
                if depth == 1 and parens == 0 and ch == separator:
                    push()
                else:
                    current.append(ch)
        elif started and depth == 1:  # docs of nested members stay with their member
            if kind == "mdoc":
                if squash("".join(current)):
                    current_doc = text
                elif last is not None and last["doc"] is None:
                    last["doc"] = text
            elif kind == "doc":
                pre_doc = text
    return members


def function_name(code):
    """Name of the function that a prototype declares (identifier before its parameter list)."""
    depth = 0
    for match in re.finditer(r"([A-Za-z_]\w*)\s*\(|[()]", code):
        if match.group(1):
            if depth == 0 and match.group(1) not in ("__attribute__", "__declspec"):
                return match.group(1)
            depth += 1
        elif match.group(0) == "(":
            depth += 1
        else:
            depth -= 1
    return None


def classify(segments, doc, line):
    code = squash("".join(text for kind, text in segments if kind == "code"))
    code = code.rstrip(";").strip()
    if not code:
        return None
    head = code.split("{", 1)[0]
    m = re.match(r"typedef\s+(enum|struct|union)\b", code)
    if m and "{" in code:
        tail = code[code.rfind("}") + 1 :]
        names = IDENT.findall(tail)
        name = names[-1] if names else None
        separator = "," if m.group(1) == "enum" else ";"
        tag = re.match(r"typedef\s+(?:enum|struct|union)\s+(\w+)", head)
        decl = f"typedef {m.group(1)} {tag.group(1) + ' ' if tag else ''}{{ ... }} {name}"
        return Item(m.group(1), name, decl, doc, line, parse_members(segments, separator))
    m = re.fullmatch(r"typedef\s+(struct|union|enum)\s+(\w+)\s+(\w+)", code)
    if m:
        return Item("opaque", m.group(3), code + ";", doc, line)
    m = re.match(r"typedef\b.*\(\s*\*\s*(\w+)\s*\)", code)
    if m:
        return Item("funcptr", m.group(1), code + ";", doc, line)
    if code.startswith("typedef"):
        names = IDENT.findall(code)
        return Item("typedef", names[-1], code + ";", doc, line)
    m = re.match(r"(enum|struct|union)\s+(\w+)\s*\{", code)
    if m:
        separator = "," if m.group(1) == "enum" else ";"
        decl = f"{m.group(1)} {m.group(2)} {{ ... }}"
        return Item(m.group(1), f"{m.group(1)} {m.group(2)}", decl, doc, line, parse_members(segments, separator))
    if re.search(r"\bTS_API\b", code) and "(" in code:
        proto = squash(re.sub(r"\bTS_API\b", "", head if "{" in code else code))
        return Item("function", function_name(proto), proto + ";", doc, line)
    if doc is not None:
        decl = squash(head) + (" { ... }" if "{" in code else ";")
        return Item("other", function_name(head) or (IDENT.findall(head) or ["?"])[-1], decl, doc, line)
    return None


class Header:
    def __init__(self, path):
        self.path = path
        self.name = os.path.relpath(path, INCLUDE).replace(os.sep, "/")
        self.file_doc = None
        self.items = []
        self.includes = []


def parse_header(path):
    header = Header(path)
    with open(path, encoding="utf-8") as f:
        tokens = lex(f.read())
    pending = None  # (doc text, line) waiting for its declaration
    groups = []  # stack of @name texts
    segments = []  # the statement being gathered
    stmt_doc = None
    stmt_line = 0
    depth = 0
    started = False  # the statement has code (not only white space)

    def finish():
        nonlocal segments, stmt_doc, depth, started
        item = classify(segments, stmt_doc, stmt_line)
        if item is not None:
            item.group = groups[-1] if groups else None
            header.items.append(item)
        segments = []
        stmt_doc = None
        depth = 0
        started = False

    def in_statement():
        return started

    for token in tokens:
        if token.kind == "doc":
            if in_statement():
                segments.append(("doc", token.text))
            elif re.search(r"@file\b", token.text):
                header.file_doc = token.text
            else:
                pending = (token.text, token.line)
        elif token.kind == "mdoc":
            if in_statement():
                segments.append(("mdoc", token.text))
            elif header.items and header.items[-1].doc is None:
                header.items[-1].doc = token.text
        elif token.kind == "gopen":
            name = None
            if pending:
                m = re.search(r"@name\s+(.*)", pending[0])
                name = m.group(1).strip() if m else squash(pending[0])
            groups.append(name)
            pending = None
        elif token.kind == "gclose":
            if groups:
                groups.pop()
        elif token.kind == "pp":
            if depth > 0:
                continue
            m = re.match(r"#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)", token.text)
            if m:
                doc = pending[0] if pending else None
                if pending and re.search(r"@name\b", pending[0]):
                    doc = None
                item = Item("macro", m.group(1), token.text, doc, token.line)
                item.group = groups[-1] if groups else None
                header.items.append(item)
            m = re.match(r'#\s*include\s*[<"]([^">]+)[">]', token.text)
            if m:
                header.includes.append(m.group(1))
            pending = None
        else:  # code
            text = token.text
            start = 0
            line = token.line
            for i, ch in enumerate(text):
                if ch == "\n":
                    line += 1
                if ch.isspace():
                    continue
                if not started:
                    if ch == "}" and depth == 0:  # closes extern "C" {
                        start = i + 1
                        continue
                    started = True
                    stmt_line = line
                    stmt_doc = pending[0] if pending else None
                    pending = None
                if ch == "{":
                    sofar = squash("".join(t for k, t in segments if k == "code") + text[start:i])
                    if depth == 0 and sofar == 'extern "C"':
                        segments = []
                        stmt_doc = None
                        started = False
                        start = i + 1
                        continue
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        sofar = squash("".join(t for k, t in segments if k == "code") + text[start : i + 1])
                        before_body = sofar.split("{", 1)[0].rstrip()
                        if before_body.endswith(")") and not before_body.startswith("typedef"):
                            segments.append(("code", text[start : i + 1]))
                            start = i + 1
                            finish()
                elif ch == ";" and depth == 0:
                    segments.append(("code", text[start : i + 1]))
                    start = i + 1
                    finish()
            if start < len(text):
                segments.append(("code", text[start:]))
    return header


def header_paths():
    """tessera.h first, then the headers it includes in its order, then any others."""
    top = os.path.join(INCLUDE, "tessera.h")
    others = sorted(
        os.path.join(INCLUDE, "tessera", f)
        for f in os.listdir(os.path.join(INCLUDE, "tessera"))
        if f.endswith(".h")
    ) if os.path.isdir(os.path.join(INCLUDE, "tessera")) else []
    ordered = [top] if os.path.exists(top) else []
    if ordered:
        included = parse_header(top).includes
        for inc in included:
            path = os.path.join(INCLUDE, inc)
            if path in others and path not in ordered:
                ordered.append(path)
    ordered += [p for p in others if p not in ordered]
    return ordered


# ---- rendering -------------------------------------------------------------------


def slug(text):
    """The anchor GitHub gives a heading."""
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Renderer:
    def __init__(self, headers):
        self.headers = headers
        self.anchors = {}
        for header in headers:
            for item in header.items:
                if item.kind != "macro" and item.name:
                    self.anchors.setdefault(item.name, slug(item.name))

    def inline(self, text):
        """Markdown for a run of doc text outside code blocks."""
        text = re.sub(r"[@\\](?:p|c|a)\s+([\w.\->\[\]*]*[\w\]])", r"`\1`", text)
        text = re.sub(r"[@\\](?:ref)\s+(\w+)", r"\1", text)
        text = re.sub(r"[@\\]e\s+(\w+)", r"*\1*", text)
        text = re.sub(r"[@\\]b\s+(\w+)", r"**\1**", text)
        text = re.sub(r"::(\w)", r"\1", text)
        parts = re.split(r"(`[^`]*`)", text)
        out = []
        for part in parts:
            if part.startswith("`") and part.endswith("`") and len(part) > 1:
                name = part[1:-1].removesuffix("()")
                if name in self.anchors:
                    part = f"[{part}](#{self.anchors[name]})"
                out.append(part)
                continue

            # Markdown would read a lone * as emphasis and <word> as HTML.
            part = part.replace("*", "\\*")
            part = re.sub(r"<(?=[A-Za-z/])", "&lt;", part)
            if self._in_table:
                part = part.replace("|", "\\|")

            def code(match):
                word = match.group(0).replace("\\*", "*")
                base = word.split("(", 1)[0]
                if base in self.anchors:
                    return f"[`{word}`](#{self.anchors[base]})"
                return f"`{word}`"

            part = re.sub(r"\b(?:ts|TS|TESSERA|tsi)_(?:\w|\\\*)*\w(?:\([^()`]*\))?|\b\w+\(\)", code, part)
            out.append(part)
        return "".join(out)

    _in_table = False

    def doc_lines(self, doc):
        """Clean lines of a doc comment: leading '*' removed, common indentation removed."""
        lines = doc.split("\n")
        cleaned = []
        for line in lines:
            line = re.sub(r"^\s*\*(?!/)", "", line, count=1) if re.match(r"^\s*\*", line) else line
            cleaned.append(line.rstrip())
        while cleaned and not cleaned[0].strip():
            cleaned.pop(0)
        while cleaned and not cleaned[-1].strip():
            cleaned.pop()
        indents = [len(l) - len(l.lstrip()) for l in cleaned if l.strip()]
        cut = min(indents) if indents else 0
        return [l[cut:] for l in cleaned]

    def block(self, doc):
        """Markdown paragraphs of a doc comment."""
        if not doc:
            return ""
        out = []
        params = []
        labelled = []  # @return, @note ...: shown after the parameters
        in_code = False
        section = None  # current @param/@return entry being extended
        for line in self.doc_lines(doc):
            stripped = line.strip()
            if re.match(r"[@\\]code\b", stripped):
                in_code = True
                section = None
                out += ["", "```c"]
                continue
            if re.match(r"[@\\]endcode\b", stripped):
                in_code = False
                out += ["```", ""]
                continue
            if in_code:
                out.append(line)
                continue
            if re.match(r"[@\\](file|name|defgroup|ingroup|addtogroup)\b", stripped):
                section = None
                continue
            stripped = re.sub(r"^[@\\]brief\s*", "", stripped)
            m = re.match(r"[@\\]param(?:\[[a-z, ]+\])?\s+(\w+)\s*(.*)", stripped)
            if m:
                params.append([m.group(1), m.group(2)])
                section = params[-1]
                continue
            m = re.match(r"[@\\](returns?|retval|note|warning|see|sa|pre|post)\b\s*(.*)", stripped)
            if m:
                label = {"return": "Returns", "returns": "Returns", "retval": "Returns", "note": "Note",
                         "warning": "Warning", "see": "See also", "sa": "See also", "pre": "Requires",
                         "post": "Ensures"}[m.group(1)]
                labelled.append([label, m.group(2)])
                section = labelled[-1]
                continue
            if not stripped:
                section = None
                out.append("")
                continue
            if section is not None:
                section[1] += " " + stripped
                continue
            out.append(self.inline(stripped))
        if params:
            out.append("")
            out.append("**Parameters:**")
            out.append("")
            for name, text in params:
                out.append(f"- `{name}`: {self.inline(text)}")
        for label, text in labelled:
            out += ["", f"**{label}:** {self.inline(text)}"]
        text = "\n".join(out).strip("\n")
        return re.sub(r"\n{3,}", "\n\n", text)

    def one_line(self, doc):
        """A doc comment as one line (for table cells)."""
        if not doc:
            return ""
        words = " ".join(l.strip() for l in self.doc_lines(doc) if l.strip())
        words = re.sub(r"^[@\\]brief\s*", "", words)
        self._in_table = True
        try:
            return self.inline(words)
        finally:
            self._in_table = False

    @staticmethod
    def prototype(decl):
        """A prototype, its parameters on separate lines when it is long."""
        if len(decl) <= 100 or "(" not in decl:
            return decl
        open_at = decl.index("(", decl.index(function_name(decl) or "(")) if function_name(decl) else decl.index("(")
        close_at = decl.rindex(")")
        params, depth, current = [], 0, ""
        for ch in decl[open_at + 1 : close_at]:
            if ch == "," and depth == 0:
                params.append(current.strip())
                current = ""
                continue
            depth += ch in "(["
            depth -= ch in ")]"
            current += ch
        params.append(current.strip())
        # Fill lines up to 100 columns, continuation lines aligned after "(".
        pad = " " * (open_at + 1)
        lines = [decl[: open_at + 1]]
        for i, param in enumerate(params):
            piece = param + ("," if i + 1 < len(params) else decl[close_at:])
            if len(lines[-1]) + len(piece) + 1 > 100 and i > 0:
                lines.append(pad + piece)
            else:
                sep = " " if i > 0 else ""
                lines[-1] += sep + piece
        return "\n".join(lines)

    def render_item(self, item, out):
        out.append(f"#### {item.name}")
        out.append("")
        if item.kind == "function":
            out += ["```c", self.prototype(item.decl), "```", ""]
        elif item.kind in ("opaque", "funcptr", "typedef", "other"):
            out += ["```c", item.decl, "```", ""]
        else:
            out += ["```c", item.decl + ";", "```", ""]
        body = self.block(item.doc)
        if body:
            out += [body, ""]
        if item.members:
            label = "Value" if item.kind == "enum" else "Member"
            out += [f"| {label} | Description |", "|---|---|"]
            for member in item.members:
                decl = member["decl"].replace("|", "\\|")
                out.append(f"| `{decl}` | {self.one_line(member['doc'])} |")
            out.append("")

    def render(self):
        out = [
            "# tessera API reference",
            "",
            "Generated by `scripts/gen-api-docs.py` from the doc comments of the public headers; edit the",
            "headers, not this file. `#include <tessera.h>` gives all of it. Every function returns a",
            "`ts_status` (or, for destructors and accessors, nothing that can fail); `ts_last_error()` gives",
            "the detail of a failure.",
            "",
            "## Contents",
            "",
        ]
        for header in self.headers:
            functions = sum(1 for i in header.items if i.kind == "function")
            types = sum(1 for i in header.items if i.kind not in ("function", "macro", "other"))
            brief = self.summary(header.file_doc)
            out.append(f"- [{header.name}](#{slug(header.name)}): {brief} ({types} types, {functions} functions)")
        out.append("")
        for header in self.headers:
            out += [f"## {header.name}", ""]
            body = self.block(header.file_doc)
            if body:
                out += [body, ""]
            own = [inc for inc in header.includes if inc.startswith("tessera")]
            if header.name == "tessera.h" and own:
                out += ["Includes " + ", ".join(f"[{inc}](#{slug(inc)})" for inc in own) + ".", ""]
            macros = [i for i in header.items if i.kind == "macro" and (i.doc or i.group)]
            types = [i for i in header.items if i.kind in ("enum", "struct", "union", "opaque", "funcptr", "typedef")]
            functions = [i for i in header.items if i.kind == "function"]
            others = [i for i in header.items if i.kind == "other"]
            if macros:
                out += ["### Constants and macros", ""]
                group = object()
                for item in macros:
                    if item.group != group and item.group:
                        out += [f"*{self.inline(item.group)}:*", ""]
                    group = item.group
                    definition = re.sub(r"^#\s*define\s+", "", item.decl)
                    line = f"- `{definition.replace('`', '')}`"
                    if item.doc:
                        line += f": {self.one_line(item.doc)}"
                    out.append(line)
                out.append("")
            if types:
                out += ["### Types", ""]
                for item in types:
                    self.render_item(item, out)
            if functions:
                out += ["### Functions", ""]
                for item in functions:
                    self.render_item(item, out)
            if others:
                out += ["### Other declarations", ""]
                for item in others:
                    self.render_item(item, out)
        text = "\n".join(out)
        text = re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"
        return text

    def summary(self, doc):
        if not doc:
            return ""
        lines = []
        for line in self.doc_lines(doc):
            s = line.strip()
            if re.match(r"[@\\]file\b", s):
                continue
            if re.match(r"[@\\]brief\b", s):
                lines.append(re.sub(r"^[@\\]brief\s*", "", s))
                continue
            if not s or s.startswith("@") or s.startswith("\\"):
                if lines:
                    break
                continue
            if lines:
                lines.append(s)
        return self.inline(" ".join(lines)).rstrip(".")


# ---- checks and main ----------------------------------------------------------------


def missing_docs(headers):
    problems = []
    for header in headers:
        where = f"include/{header.name}"
        if not header.file_doc:
            problems.append(f"{where}:1: header has no /** @file ... */ comment")
        for item in header.items:
            if item.kind == "function" and not item.doc:
                problems.append(f"{where}:{item.line}: function {item.name} has no doc comment")
            if item.kind in ("enum", "struct", "union", "opaque", "funcptr", "typedef"):
                if not item.doc:
                    problems.append(f"{where}:{item.line}: type {item.name} has no doc comment")
                for member in item.members:
                    if not member["doc"]:
                        problems.append(
                            f"{where}:{item.line}: member '{member['decl']}' of {item.name} has no doc comment"
                        )
            if item.kind == "function" and not item.name:
                problems.append(f"{where}:{item.line}: could not find the name of a TS_API declaration")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail on missing docs or a stale docs/API.md")
    parser.add_argument("--stdout", action="store_true", help="print the reference instead of writing it")
    args = parser.parse_args()

    headers = [parse_header(path) for path in header_paths()]
    if not headers:
        print("gen-api-docs: no headers under include/", file=sys.stderr)
        return 1
    text = Renderer(headers).render()
    problems = missing_docs(headers)
    functions = sum(1 for h in headers for i in h.items if i.kind == "function")
    types = sum(1 for h in headers for i in h.items if i.kind in ("enum", "struct", "union", "opaque", "funcptr", "typedef"))

    if args.stdout:
        sys.stdout.write(text)
        return 0
    if args.check:
        current = open(OUTPUT, encoding="utf-8").read() if os.path.exists(OUTPUT) else ""
        if current != text:
            diff = list(difflib.unified_diff(current.splitlines(), text.splitlines(), "docs/API.md (committed)",
                                             "docs/API.md (from the headers)", lineterm="", n=1))
            problems.append("docs/API.md is not up to date with the headers (run scripts/gen-api-docs.py):")
            problems += ["    " + line for line in diff[:40]]
            if len(diff) > 40:
                problems.append(f"    ... {len(diff) - 40} more diff lines")
        if problems:
            print("gen-api-docs: check failed:", file=sys.stderr)
            for problem in problems:
                print("  " + problem, file=sys.stderr)
            return 1
        print(f"gen-api-docs: {len(headers)} headers, {types} types, {functions} functions: documented, docs/API.md up to date")
        return 0

    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"gen-api-docs: wrote docs/API.md ({len(headers)} headers, {types} types, {functions} functions)")
    for problem in problems:
        print("  warning: " + problem, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
