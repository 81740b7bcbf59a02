"""The greeting text (a module of the package: the extension imports it relatively)."""


def greeting(name: str) -> str:
    return f"Hello, {name or 'world'}! (from pi-hello)"
