"""Reading plotly figure data in tests: plotly keeps a numpy array in its JSON as a typed array
``{"dtype", "bdata", "shape"}`` (base64), a short one as a plain list; tests want numpy either way."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import numpy as np


def trace_array(value: object, dtype: type | None = float) -> np.ndarray:
    """A trace's array (``x``, ``y``, ``z``, ...) from a figure dict or a plotly object, as numpy with its shape;
    ``dtype=None`` keeps a plain list's own element type (text, say)."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = tuple(int(n) for n in shape.split(","))
        return data.reshape(shape) if shape else data
    return np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)


def strings(node: object) -> Iterator[str]:
    """Every string inside a plotly JSON dict (``fig.to_plotly_json()``): titles, labels, legends, hover text,
    text arrays (numpy arrays of strings too)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from strings(item)
    elif isinstance(node, np.ndarray) and node.dtype.kind in "OUS":
        for item in node.ravel():
            yield from strings(item.decode("utf-8", "replace") if isinstance(item, bytes) else item)
