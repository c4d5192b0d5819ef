"""The window's OpenGL side: opening the window and its context, telling a software renderer, whether the
back buffer survives a swap, where the scene is drawn (SceneTarget) and reading the screen back (screenshots).
"""
from __future__ import annotations

import os
from pathlib import Path

import moderngl
import numpy as np
import pygame


def open_window(size: tuple[int, int], fullscreen: bool) -> tuple[pygame.Surface, moderngl.Context]:
    pygame.display.init()
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MAJOR_VERSION, 3)
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MINOR_VERSION, 3)
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_PROFILE_MASK, pygame.GL_CONTEXT_PROFILE_CORE)
    pygame.display.gl_set_attribute(pygame.GL_DEPTH_SIZE, 24)
    flags = pygame.OPENGL | pygame.DOUBLEBUF | pygame.RESIZABLE | (pygame.FULLSCREEN if fullscreen else 0)
    # no multisampled window: antialiasing is an offscreen framebuffer, and only on a real GPU (SceneTarget)
    pygame.display.gl_set_attribute(pygame.GL_MULTISAMPLEBUFFERS, 0)
    pygame.display.gl_set_attribute(pygame.GL_MULTISAMPLESAMPLES, 0)
    surface = pygame.display.set_mode(size, flags)
    pygame.display.set_caption("Contact Patch")
    return surface, moderngl.create_context()


SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swiftshader", "software rasterizer", "gdi generic",
                      "microsoft basic render")


def software_renderer(ctx: moderngl.Context) -> bool:
    """True when OpenGL is rasterised on the CPU (Mesa llvmpipe and the like): every sample costs."""
    name = str(ctx.info.get("GL_RENDERER", "")).lower()
    return any(k in name for k in SOFTWARE_RENDERERS)


def back_buffer_kept(ctx: moderngl.Context) -> bool:
    """True when the window's back buffer still holds the last frame after a swap (Mesa's software
    renderers do under SDL's offscreen driver; a swap chain that takes turns between buffers does not):
    three frames in slightly different shades of the sky (no flash at startup), each read back after its
    swap."""
    ctx.screen.use()
    kept = True
    for color in ((158, 189, 224), (159, 189, 224), (158, 190, 224)):
        ctx.clear(*(c / 255 for c in color), 1.0)
        pygame.display.flip()
        pixel = tuple(ctx.screen.read(viewport=(0, 0, 1, 1), components=3))
        _ = ctx.error                      # reading the screen can leave a GL error pending
        kept = kept and pixel == color
    return kept


class SceneTarget:
    """Where the scene is drawn: on a GPU a 4x multisampled framebuffer resolved onto the screen each
    frame (antialiasing); on a software renderer the screen itself (4 samples would cost 4x per pixel).
    `keeps`: the screen still holds last frame's pixels when the next frame begins (a software renderer
    whose back buffer survives the swap), so the panels around the 3D view can stay as they are on frames
    that do not draw them again (App.draw)."""

    SAMPLES = 4

    def __init__(self, ctx: moderngl.Context, msaa: bool, keeps: bool = False):
        self.ctx = ctx
        self.msaa = msaa
        self.keeps = keeps and not msaa
        self.size = (0, 0)
        self.fbo = None

    def begin(self, size: tuple[int, int]) -> bool:
        """Draw the scene from now on; True when nothing is kept from the frame before (first, new size)."""
        fresh = size != self.size
        self.size = size
        if not self.msaa:
            self.ctx.screen.use()
            return fresh
        if self.fbo is None or fresh:
            if self.fbo is not None:
                self.fbo.release()
            try:
                self.fbo = self.ctx.framebuffer(
                    color_attachments=[self.ctx.renderbuffer(size, 4, samples=self.SAMPLES)],
                    depth_attachment=self.ctx.depth_renderbuffer(size, samples=self.SAMPLES))
            except moderngl.Error:                 # no multisampling here after all
                self.msaa, self.fbo = False, None
                self.ctx.screen.use()
                return True
        self.fbo.use()
        return fresh

    def end(self) -> None:
        """Resolve onto the screen and draw there from now on (the overlay)."""
        if self.msaa and self.fbo is not None:
            self.ctx.copy_framebuffer(self.ctx.screen, self.fbo)
        self.ctx.screen.use()


def save_screenshot(ctx: moderngl.Context, size: tuple[int, int], path: str | Path) -> Path:
    """Save what is on screen as a PNG (atomically)."""
    data = ctx.screen.read(viewport=(0, 0, *size), components=3)
    _ = ctx.error                          # reading the screen can leave a GL error pending
    img = np.frombuffer(data, dtype=np.uint8).reshape(size[1], size[0], 3)[::-1]
    surf = pygame.image.frombytes(np.ascontiguousarray(img).tobytes(), size, "RGB")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.cp-tmp.png")
    pygame.image.save(surf, str(tmp))
    os.replace(tmp, path)
    return path
