"""Instanced drawing: a per-instance buffer beside a mesh's vertices, so one draw call draws every copy.

Each use of a mesh in a frame (the car's wheels, a ghost's wheels, the boxes) has its own instance buffer
(`Slots`): a software renderer waits for the frame so far to be rasterised before it rewrites a buffer
that frame already read. A buffer is orphaned before it is rewritten, so last frame's draws are not
waited for, and rows equal to the last ones are not written again (what does not move is written once).
"""
from __future__ import annotations

import moderngl
import numpy as np


class InstanceBuffer:
    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, vertices: list, fmt: str, attrs: tuple,
                 floats: int, ibo=None):
        self.floats = floats
        self.buffer = ctx.buffer(reserve=floats * 4 * 4, dynamic=True)
        self._last = b""
        self.vao = ctx.vertex_array(prog, [*vertices, (self.buffer, fmt, *attrs)], index_buffer=ibo,
                                    index_element_size=4)

    def write(self, rows: np.ndarray) -> int:
        """Rows (n, floats) into the buffer; returns n."""
        data = np.ascontiguousarray(rows, dtype="f4").tobytes()
        if data != self._last:
            self.buffer.orphan(max(len(data), self.buffer.size))
            self.buffer.write(data)
            self._last = data
        return len(data) // (self.floats * 4)

    def release(self) -> None:
        self.vao.release()
        self.buffer.release()


class Slots:
    """A mesh (`vertices`: the vertex array's content without the instances) drawn instanced: `draw(slot,
    rows)` draws one copy per row in one call, from the slot's own instance buffer."""

    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, vertices: list, fmt: str, attrs: tuple,
                 floats: int):
        self.ctx, self.prog, self.vertices = ctx, prog, vertices
        self.fmt, self.attrs, self.floats = fmt, attrs, floats
        self.slots: dict[str, InstanceBuffer] = {}

    def draw(self, slot: str, rows, mode=moderngl.TRIANGLES) -> None:
        rows = np.asarray(rows, dtype="f4").reshape(-1, self.floats)
        if not len(rows):
            return
        inst = self.slots.get(slot)
        if inst is None:
            inst = self.slots[slot] = InstanceBuffer(self.ctx, self.prog, self.vertices, self.fmt, self.attrs,
                                                     self.floats)
        inst.vao.render(mode, instances=inst.write(rows))

    def release(self) -> None:
        for inst in self.slots.values():
            inst.release()
