"""The API reference of the package, generated from its docstrings:

    python python/tools/apidoc.py > python/API.md

Everything in parprim.__all__, in that order: the module's docstring, then
per function and class its signature and docstring (a class's public
methods and properties beneath it). The test suite checks that
python/API.md is what this prints (python/tests/test_apidoc.py), so the
reference cannot drift from the code.
"""

from __future__ import annotations

import inspect

import parprim


def _doc(obj):
    return inspect.cleandoc(obj.__doc__ or "(undocumented)")


def _block(text):
    """A docstring as Markdown: its first paragraph as prose, the rest in a
    fenced block so that its layout (lists, examples) stays as written."""
    head, _, rest = text.partition("\n\n")
    out = [head.replace("\n", " ")]
    if rest.strip():
        out += ["", "```text", rest.rstrip(), "```"]
    return out


def _signature(name, obj):
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return name


def _members(cls):
    """The public members of cls, then those of its bases from parprim
    (Context's segmented and by-key methods live in a base class)."""
    seen = set()
    for klass in cls.__mro__:
        if klass is not cls and not klass.__module__.startswith("parprim"):
            continue
        for name, obj in klass.__dict__.items():
            if not name.startswith("_") and name not in seen:
                seen.add(name)
                yield name, obj


def generate():
    lines = ["# parprim for Python: API reference", "",
             "Generated from the docstrings by `python python/tools/apidoc.py > python/API.md`; "
             "python/README.md is the guide, include/parprim.h the manual of the C library.", "",
             "```text", _doc(parprim), "```", ""]
    for name in parprim.__all__:
        obj = getattr(parprim, name)
        if name == "__version__":
            continue
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            bases = ", ".join(b.__name__ for b in obj.__bases__)
            lines += [f"## exception `{name}({bases})`", ""] + _block(_doc(obj)) + [""]
        elif inspect.isclass(obj):
            lines += [f"## class `{_signature(name, obj)}`", ""] + _block(_doc(obj)) + [""]
            for mname, m in _members(obj):
                if isinstance(m, property):
                    lines += [f"### property `{name}.{mname}`", ""] + _block(_doc(m)) + [""]
                elif isinstance(m, (staticmethod, classmethod)):
                    f = getattr(obj, mname)  # bound: no cls in the signature
                    lines += [f"### `{name}.{_signature(mname, f)}`", ""] + _block(_doc(f)) + [""]
                elif inspect.isfunction(m):
                    sig = _signature(mname, m).replace("(self, ", "(").replace("(self)", "()")
                    lines += [f"### `{name}.{sig}`", ""] + _block(_doc(m)) + [""]
        elif callable(obj):
            lines += [f"## `parprim.{_signature(name, obj)}`", ""] + _block(_doc(obj)) + [""]
        else:
            lines += [f"## `parprim.{name}`", "", f"`{obj!r}`", ""]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(generate(), end="")
