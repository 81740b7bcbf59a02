"""Base class of every protocol model: snake_case in Python, camelCase on the wire.

One model layer serves both directions: ``Model.model_validate(wire_dict)`` accepts the
camelCase keys, ``model.to_wire()`` writes them back, leaving out every key that was never
set (absent stays absent, never ``null``). Schemas are built on first use
(``defer_build``), so importing this package costs no model construction.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        strict=True,
        defer_build=True,
        extra="ignore",
    )

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")


class OpenWireModel(WireModel):
    """Shapes that upstream may extend (messages, models, entries): unknown keys are kept."""

    model_config = ConfigDict(extra="allow")
