"""Text panels drawn on top of the scene: lines rasterised with pygame.font into a texture."""
from __future__ import annotations

import moderngl
import numpy as np
import pygame

VERT = """
#version 330
uniform vec2 u_screen;
in vec2 in_pos;
in vec2 in_uv;
out vec2 v_uv;
void main() {
    v_uv = in_uv;
    gl_Position = vec4(in_pos.x / u_screen.x * 2.0 - 1.0, 1.0 - in_pos.y / u_screen.y * 2.0, 0.0, 1.0);
}
"""
FRAG = """
#version 330
uniform sampler2D u_tex;
in vec2 v_uv;
out vec4 f_color;
void main() { f_color = texture(u_tex, v_uv); }
"""


class TextPanel:
    """A block of text lines on a translucent background at a screen position (pixels, top-left)."""

    def __init__(self, ctx: moderngl.Context, size: int = 20):
        if not pygame.font.get_init():
            pygame.font.init()
        self.ctx = ctx
        self.font = pygame.font.Font(None, size)
        self.prog = ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        self.vbo = ctx.buffer(reserve=6 * 4 * 4)
        self.vao = ctx.vertex_array(self.prog, [(self.vbo, "2f 2f", "in_pos", "in_uv")])
        self.tex = None
        self.lines: tuple[str, ...] = ()
        self.size = (0, 0)

    def set_lines(self, lines, color=(255, 255, 255)) -> None:
        lines = tuple(lines)
        if lines == self.lines and self.tex is not None:
            return
        self.lines = lines
        pad = 8
        h = self.font.get_linesize()
        w = max([self.font.size(s)[0] for s in lines] + [1]) + 2 * pad
        surf = pygame.Surface((w, h * max(len(lines), 1) + 2 * pad), pygame.SRCALPHA)
        surf.fill((10, 12, 16, 170))
        for i, s in enumerate(lines):
            surf.blit(self.font.render(s, True, color), (pad, pad + i * h))
        data = pygame.image.tobytes(surf, "RGBA")
        if self.tex is None or self.tex.size != surf.get_size():
            if self.tex is not None:
                self.tex.release()
            self.tex = self.ctx.texture(surf.get_size(), 4, data)
            self.tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
        else:
            self.tex.write(data)
        self.size = surf.get_size()

    def draw(self, x: float, y: float, screen: tuple[int, int]) -> None:
        if self.tex is None or not self.lines:
            return
        w, h = self.size
        quad = np.array([[x, y, 0, 0], [x + w, y, 1, 0], [x + w, y + h, 1, 1],
                         [x, y, 0, 0], [x + w, y + h, 1, 1], [x, y + h, 0, 1]], dtype="f4")
        self.vbo.write(quad.tobytes())
        self.prog["u_screen"].value = (float(screen[0]), float(screen[1]))
        ctx = self.ctx
        ctx.disable(moderngl.DEPTH_TEST)
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        self.tex.use(0)
        self.vao.render()
        ctx.disable(moderngl.BLEND)
