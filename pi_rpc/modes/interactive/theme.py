"""Themes of the interactive mode (upstream ``docs/themes.md``) as Textual themes.

The ``theme`` setting names ``system`` (the default: the terminal's own ANSI colours, Textual's
``ansi-dark``/``ansi-light``), the built-in ``dark`` or ``light``, a custom theme, or a
``light/dark`` pair picked by the terminal's appearance (``COLORFGBG``, else dark). Custom themes
are upstream's JSON files (``name``, ``appearance``, ``vars``, ``colors``) from
``<agent-dir>/themes/``, the project's ``.pi/themes/`` (trusted projects only), the ``themes``
setting's files and folders and the configured packages, less those a ``-``/``!`` entry of a
``themes`` array leaves out (``theme_paths``). Colours may be ``#rgb``/``#rrggbb``, ``oklch(...)``, ``okhsl(...)``,
a 256-colour index, a ``vars`` name or ``""`` (the terminal's default). Textual cannot colour
each of upstream's ~60 roles separately, so the roles map onto Textual's palette: ``border`` ->
primary, ``accent``, ``text`` -> foreground, ``muted`` -> the muted text, ``success``/``warning``/
``error``, ``userMessageBg`` -> surface, ``selectedBg`` -> panel. ``NO_COLOR`` is honoured by
Textual itself (every colour is turned to grey levels).
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

BUILTIN_NAMES = ("system", "dark", "light")

# upstream's built-in dark.json / light.json: the roles this mode can show
BUILTIN: dict[str, dict[str, Any]] = {
    "dark": {
        "name": "dark",
        "appearance": "dark",
        "colors": {
            "accent": "okhsl(295 50% 67%)",
            "border": "okhsl(231 57% 65%)",
            "text": "okhsl(234 3% 89%)",
            "muted": "okhsl(229 6% 67%)",
            "success": "okhsl(159 59% 67%)",
            "error": "okhsl(20 72% 67%)",
            "warning": "okhsl(83 88% 67%)",
            "selectedBg": "okhsl(233 41% 24%)",
            "userMessageBg": "okhsl(233 41% 24%)",
        },
    },
    "light": {
        "name": "light",
        "appearance": "light",
        "colors": {
            "accent": "okhsl(295 60% 46%)",
            "border": "okhsl(231 67% 55%)",
            "text": "okhsl(225 5% 27%)",
            "muted": "okhsl(229 8% 47%)",
            "success": "okhsl(159 75% 46%)",
            "error": "okhsl(20 91% 47%)",
            "warning": "okhsl(83 99% 47%)",
            "selectedBg": "okhsl(235 19% 91%)",
            "userMessageBg": "okhsl(235 19% 91%)",
        },
    },
}


class ThemeError(ValueError):
    pass


# ---------------------------------------------------------------- colour maths (upstream's oklab.js,
# a port of Björn Ottosson's reference implementation, MIT)

_LAB_TO_LMS = ((1, 0.3963377773761749, 0.2158037573099136), (1, -0.1055613458156586, -0.0638541728258133),
               (1, -0.0894841775298119, -1.2914855480194092))  # fmt: skip
_LMS_TO_LINEAR = ((4.0767416360759583, -3.3077115392580629, 0.2309699031821043),
                  (-1.2684379732850315, 2.6097573492876882, -0.341319376002657),
                  (-0.0041960761386756, -0.7034186179359362, 1.7076146940746117))  # fmt: skip
_SAT_FIT = (((-1.8817031, -0.80936501), (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245)),
            ((1.8144408, -1.19445267), (0.73956515, -0.45954404, 0.08285427, 0.12541073, -0.14503204)),
            ((0.13110758, 1.81333971), (1.35733652, -0.00915799, -1.1513021, -0.50559606, 0.00692167)))  # fmt: skip
_K1, _K2 = 0.206, 0.03
_K3 = (1 + _K1) / (1 + _K2)

Vec = tuple[float, float, float]


def _mul(m: tuple[tuple[float, float, float], ...], v: Vec) -> Vec:
    x, y, z = v
    a, b, c = (row[0] * x + row[1] * y + row[2] * z for row in m)
    return a, b, c


def _lab_to_linear(lab: Vec) -> Vec:
    a, b, c = (value**3 for value in _mul(_LAB_TO_LMS, lab))
    return _mul(_LMS_TO_LINEAR, (a, b, c))


def _to_hex(linear: Vec) -> str:
    def channel(value: float) -> int:
        encoded = 1.055 * value ** (1 / 2.4) - 0.055 if value > 0.0031308 else 12.92 * value
        return round(min(1.0, max(0.0, encoded)) * 255)

    return "#" + "".join(f"{channel(v):02x}" for v in linear)


def _slopes(a: float, b: float) -> Vec:
    x, y, z = (row[1] * a + row[2] * b for row in _LAB_TO_LMS)
    return x, y, z


def _max_saturation(a: float, b: float) -> float:
    channel = next(i for i, ((x, y), _) in enumerate(_SAT_FIT) if i == 2 or x * a + y * b > 1)
    k0, k1, k2, k3, k4 = _SAT_FIT[channel][1]
    weights = _LMS_TO_LINEAR[channel]
    s = k0 + k1 * a + k2 * b + k3 * a * a + k4 * a * b
    slopes = _slopes(a, b)
    base = [1 + s * k for k in slopes]
    f = sum(w * v**3 for w, v in zip(weights, base, strict=True))
    f1 = sum(w * 3 * k * v**2 for w, k, v in zip(weights, slopes, base, strict=True))
    f2 = sum(w * 6 * k**2 * v for w, k, v in zip(weights, slopes, base, strict=True))
    return s - (f * f1) / (f1 * f1 - 0.5 * f * f2)


def _cusp(a: float, b: float) -> tuple[float, float]:
    s = _max_saturation(a, b)
    lightness = (1 / max(_lab_to_linear((1, s * a, s * b)))) ** (1 / 3)
    return lightness, lightness * s


def _max_chroma(a: float, b: float, lightness: float, cusp: tuple[float, float]) -> float:
    cusp_l, cusp_c = cusp
    if lightness <= cusp_l:
        return cusp_c * lightness / cusp_l
    t = cusp_c * (lightness - 1) / (cusp_l - 1)
    slopes = _slopes(a, b)
    lms = [lightness + t * k for k in slopes]
    steps = []
    for row in _LMS_TO_LINEAR:
        f = sum(r * v**3 for r, v in zip(row, lms, strict=True)) - 1
        f1 = sum(r * 3 * k * v**2 for r, k, v in zip(row, slopes, lms, strict=True))
        f2 = sum(r * 6 * k**2 * v for r, k, v in zip(row, slopes, lms, strict=True))
        u = f1 / (f1 * f1 - 0.5 * f * f2)
        steps.append(-f * u if u >= 0 else math.inf)
    return t + min(steps)


def okhsl_to_hex(hue: float, saturation: float, lightness: float) -> str:
    big_l = (lightness * lightness + _K1 * lightness) / (_K3 * (lightness + _K2))
    lab: Vec = (big_l, 0.0, 0.0)
    if 0 < big_l < 1 and saturation > 0:
        angle = 2 * math.pi * (hue % 360) / 360
        a, b = math.cos(angle), math.sin(angle)
        cusp = _cusp(a, b)
        c_max = _max_chroma(a, b, big_l, cusp)
        k = c_max / min(big_l * (cusp[1] / cusp[0]), (1 - big_l) * (cusp[1] / (1 - cusp[0])))
        mid_s = 0.11516993 + 1 / (7.4477897 + 4.1590124 * b + a * (-2.19557347 + 1.75198401 * b + a * (
            -2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a))))  # fmt: skip
        mid_t = 0.11239642 + 1 / (1.6132032 - 0.68124379 * b + a * (0.40370612 + 0.90148123 * b + a * (
            -0.27087943 + 0.6122399 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a))))  # fmt: skip
        c_mid = 0.9 * k * math.sqrt(math.sqrt(1 / (1 / (big_l * mid_s) ** 4 + 1 / ((1 - big_l) * mid_t) ** 4)))
        c0 = math.sqrt(1 / (1 / (big_l * 0.4) ** 2 + 1 / ((1 - big_l) * 0.8) ** 2))
        if saturation < 0.8:
            t = 1.25 * saturation
            k1 = 0.8 * c0
            chroma = t * k1 / (1 - (1 - k1 / c_mid) * t)
        else:
            t = 5 * (saturation - 0.8)
            k1 = 0.2 * c_mid**2 * 1.25**2 / c0
            chroma = c_mid + t * k1 / (1 - (1 - k1 / (c_max - c_mid)) * t)
        lab = (big_l, chroma * a, chroma * b)
    return _to_hex(_lab_to_linear(lab))


def oklch_to_hex(lightness: float, chroma: float, hue: float) -> str:
    angle = math.radians(hue)
    return _to_hex(_lab_to_linear((lightness, chroma * math.cos(angle), chroma * math.sin(angle))))


# ---------------------------------------------------------------- theme files

_FUNC = re.compile(r"^(okhsl|oklch)\(\s*([^)]*)\)$", re.IGNORECASE)


def _number(token: str, percent_scale: float) -> float:
    token = token.strip()
    if token.endswith("%"):
        return float(token[:-1]) / 100 * percent_scale
    return float(token)


def resolve_color(value: Any, variables: dict[str, Any], seen: tuple[str, ...] = ()) -> str | None:
    """A theme colour as ``#rrggbb``; ``None`` for the terminal's default (``""``)."""
    if isinstance(value, bool):
        raise ThemeError(f"invalid colour {value!r}")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ThemeError(f"colour index {value} outside 0-255")
        from rich.color import Color

        triplet = Color.from_ansi(value).get_truecolor()
        return triplet.hex
    if not isinstance(value, str):
        raise ThemeError(f"invalid colour {value!r}")
    text = value.strip()
    if text == "":
        return None
    if re.fullmatch(r"#[0-9a-fA-F]{3}", text):
        return "#" + "".join(c * 2 for c in text[1:]).lower()
    if re.fullmatch(r"#[0-9a-fA-F]{6}", text):
        return text.lower()
    match = _FUNC.match(text)
    if match:
        parts = match.group(2).replace(",", " ").split()
        if len(parts) != 3:
            raise ThemeError(f"invalid colour {value!r}")
        try:
            if match.group(1).lower() == "okhsl":
                return okhsl_to_hex(float(parts[0]), _number(parts[1], 1), _number(parts[2], 1))
            return oklch_to_hex(_number(parts[0], 1), _number(parts[1], 0.4), float(parts[2]))
        except ValueError as exc:
            raise ThemeError(f"invalid colour {value!r}") from exc
    if text in variables:
        if text in seen:
            raise ThemeError(f"circular variable reference {' -> '.join((*seen, text))}")
        return resolve_color(variables[text], variables, (*seen, text))
    raise ThemeError(f"unknown colour or variable {value!r}")


def theme_paths(agent_dir: Path, cwd: str | None, project_trusted: bool, settings: Any = None) -> list[Path]:
    """Where custom themes come from, in upstream's order: the configured packages' themes, then
    the top-level ones — the ``themes`` settings' files and folders (project, then user; each
    relative to its scope's folder) and ``.pi/themes``, ``<agentDir>/themes`` — leaving out what
    a ``-``/``!`` entry of a ``themes`` array excludes (what ``pi config`` writes)."""
    from pi_rpc.config.settings import Settings
    from pi_rpc.runtime.settings_resources import enabled_top_level_files

    if settings is None or not hasattr(settings, "global_dict"):
        settings = Settings.load(agent_dir=agent_dir, cwd=cwd, approve=project_trusted, warn=None)
    directory = os.path.abspath(cwd or os.getcwd())
    files = package_theme_files(agent_dir, cwd, project_trusted, settings)
    files += enabled_top_level_files(settings, directory, str(agent_dir), project_trusted, "themes")
    out: list[Path] = []
    for file in files:
        if Path(file) not in out and file.endswith(".json"):
            out.append(Path(file))
    return out


def package_theme_files(agent_dir: Path, cwd: str | None, project_trusted: bool, settings: Any) -> list[str]:
    """Theme files of the configured packages (``pi_rpc.packages``; the runtime's resolve is
    memoised, so this installs nothing new)."""
    from pi_rpc.packages import package_resources

    found = package_resources(
        cwd=os.path.abspath(cwd or os.getcwd()),
        agent_dir=str(agent_dir),
        project_trusted=project_trusted,
        global_settings=settings.global_dict(),
        project_settings=settings.project_dict(),
    )
    return [f.path for f in found.themes]


def load_custom_themes(paths: list[Path]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """``({name: theme}, [warnings])``; an invalid file or a taken name is a warning."""
    themes: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("colors"), dict):
                raise ThemeError("a theme needs a colors object")
            name = data.get("name")
            if not isinstance(name, str) or not name or "/" in name or name == "system":
                raise ThemeError("a theme needs a name without '/' other than 'system'")
            variables = data.get("vars") or {}
            for value in data["colors"].values():
                resolve_color(value, variables)
        except (OSError, ValueError) as exc:
            warnings.append(f"Invalid theme {path}: {exc}")
            continue
        if name in themes or name in BUILTIN_NAMES:
            warnings.append(f"Theme {name!r} from {path} collides with another theme of that name")
            continue
        themes[name] = data
    return themes, warnings


def terminal_is_light(env: dict[str, str] | None = None) -> bool:
    """``COLORFGBG`` ("fg;bg"): a background of 7 or 9-15 is light; anything else, dark."""
    value = (env if env is not None else os.environ).get("COLORFGBG", "")
    bg = value.split(";")[-1]
    return bg.isdigit() and (int(bg) == 7 or 9 <= int(bg) <= 15)


def choose_name(setting: Any, env: dict[str, str] | None = None) -> str:
    """The theme to use for the ``theme`` setting (``light/dark`` picks by appearance)."""
    name = setting if isinstance(setting, str) and setting else "system"
    if "/" in name:
        light, _, dark = name.partition("/")
        name = light if terminal_is_light(env) else dark
    return name


def to_textual(theme: dict[str, Any]) -> Any:
    """An upstream theme as a Textual ``Theme`` (see the module docstring for the role map)."""
    from textual.theme import Theme

    colors: dict[str, Any] = theme["colors"]
    variables = theme.get("vars") or {}

    def pick(*roles: str) -> str | None:
        for role in roles:
            if role in colors:
                resolved = resolve_color(colors[role], variables)
                if resolved is not None:
                    return resolved
        return None

    appearance = theme.get("appearance")
    text = pick("text")
    dark = appearance != "light" if appearance in ("dark", "light") else not _light_hex(text)
    extra = {"text-muted": muted} if (muted := pick("muted", "dim")) else {}
    return Theme(
        name=f"pi-{theme['name']}",
        primary=pick("border", "borderAccent", "accent") or ("#6c7bd9" if dark else "#3b4bb0"),
        accent=pick("accent", "borderAccent"),
        foreground=text,
        success=pick("success"),
        warning=pick("warning"),
        error=pick("error"),
        surface=pick("userMessageBg"),
        panel=pick("selectedBg", "toolPendingBg"),
        dark=dark,
        variables=extra,
    )


def _light_hex(color: str | None) -> bool:
    if not color:
        return False
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b > 140


def available_themes(
    agent_dir: Path, cwd: str | None, project_trusted: bool = False, settings: Any = None
) -> list[str]:
    """Names /settings offers: the built-ins, then the custom themes found."""
    paths = theme_paths(agent_dir, cwd, project_trusted, settings)
    custom, _ = load_custom_themes(paths)
    return [*BUILTIN_NAMES, *sorted(custom)]


def resolve_theme(
    setting: Any, agent_dir: Path, cwd: str | None, project_trusted: bool, settings: Any = None
) -> tuple[Any, list[str]]:
    """``(textual Theme or a built-in Textual theme name, [warnings])`` for the ``theme`` setting."""
    name = choose_name(setting)
    warnings: list[str] = []
    if name == "system":
        return ("ansi-light" if terminal_is_light() else "ansi-dark"), warnings
    if name in BUILTIN:
        return to_textual(BUILTIN[name]), warnings
    custom, warnings = load_custom_themes(theme_paths(agent_dir, cwd, project_trusted, settings))
    if name in custom:
        try:
            return to_textual(custom[name]), warnings
        except (ValueError, KeyError) as exc:
            warnings.append(f"Theme {name!r}: {exc}")
    else:
        warnings.append(f"Theme {name!r} not found; using the terminal's colours")
    return ("ansi-light" if terminal_is_light() else "ansi-dark"), warnings
