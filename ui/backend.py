"""Dear ImGui (imgui-bundle >= 1.92) on moderngl, and pygame events into ImGui.

The renderer follows imgui 1.92's texture protocol: it declares `renderer_has_textures`, then every
frame creates, updates or destroys the textures ImGui asks for (`platform_io.textures`), and draws each
command with the texture its `get_tex_id()` names. `NullRenderer` answers the same requests without a
GPU, for headless tests.
"""
from __future__ import annotations

import ctypes

import moderngl
import numpy as np
import pygame
from imgui_bundle import imgui

VERT = """
#version 330
uniform mat4 u_proj;
in vec2 in_pos;
in vec2 in_uv;
in vec4 in_col;
out vec2 v_uv;
out vec4 v_col;
void main() {
    v_uv = in_uv;
    v_col = in_col;
    gl_Position = u_proj * vec4(in_pos, 0.0, 1.0);
}
"""
FRAG = """
#version 330
uniform sampler2D u_tex;
in vec2 v_uv;
in vec4 v_col;
out vec4 f_color;
void main() { f_color = v_col * texture(u_tex, v_uv); }
"""
VERTEX_BYTES = 20          # ImDrawVert: pos 2f, uv 2f, col 4 x u8


def configure_io(display_size=(1280, 720)) -> None:
    io = imgui.get_io()
    io.display_size = display_size
    io.backend_flags |= imgui.BackendFlags_.renderer_has_textures
    # no keyboard navigation: with it ImGui claims the keyboard whenever one of its windows has focus
    # (always, at startup), and the arrow keys would never reach the car. Without it ImGui takes keys
    # only while a widget such as a text field is active.
    io.config_flags &= ~imgui.ConfigFlags_.nav_enable_keyboard
    io.config_flags |= imgui.ConfigFlags_.docking_enable        # the panels dock around the 3D view


class NullRenderer:
    """Answers ImGui's texture requests without drawing (headless tests)."""

    def __init__(self):
        self.next_id = 1

    def update_textures(self) -> None:
        for t in imgui.get_platform_io().textures:
            if t.status == imgui.ImTextureStatus.want_create:
                t.set_tex_id(self.next_id)
                self.next_id += 1
                t.set_status(imgui.ImTextureStatus.ok)
            elif t.status == imgui.ImTextureStatus.want_updates:
                t.set_status(imgui.ImTextureStatus.ok)
            elif t.status == imgui.ImTextureStatus.want_destroy:
                t.set_status(imgui.ImTextureStatus.destroyed)

    def render(self, draw_data) -> None:
        self.update_textures()


class ModernGLRenderer(NullRenderer):
    """`nearest`: sample ImGui's textures at the nearest texel instead of filtering. Its glyphs and
    shapes are drawn at their texels' size, so at a framebuffer scale of 1 the panels look the same
    (plots' line ends differ by a shade); a software rasteriser then fills them about 15 % faster
    (llvmpipe: 1.87 -> 1.59 ms for a fifth of the panels at 1280x720). With a framebuffer scale other
    than 1 the textures are always filtered."""

    def __init__(self, ctx: moderngl.Context, nearest: bool = False):
        super().__init__()
        self.ctx = ctx
        self.nearest = nearest
        self.prog = ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        self.vbo = ctx.buffer(reserve=1 << 16, dynamic=True)
        self.ibo = ctx.buffer(reserve=1 << 16, dynamic=True)
        self.index_size = imgui.INDEX_SIZE
        self.index_type = {2: np.uint16, 4: np.uint32}[self.index_size]
        # every list's indices are rebased into one 32-bit index buffer: one upload per frame (below)
        self.vao = ctx.vertex_array(self.prog, [(self.vbo, "2f 2f 4f1", "in_pos", "in_uv", "in_col")],
                                    index_buffer=self.ibo, index_element_size=4)
        self.textures: dict[int, moderngl.Texture] = {}
        self.commands: list[tuple[tuple[int, int, int, int], int, int, int]] = []   # scissor, texture, count, first
        self.fb_size = (0, 0)
        self.nearest_now = nearest

    def update_textures(self) -> None:
        for t in imgui.get_platform_io().textures:
            if t.status == imgui.ImTextureStatus.want_create:
                tex = self.ctx.texture((t.width, t.height), 4, t.get_pixels_array().tobytes())
                tex.filter = (moderngl.NEAREST, moderngl.NEAREST) if self.nearest_now else \
                    (moderngl.LINEAR, moderngl.LINEAR)
                tid = self.next_id
                self.next_id += 1
                self.textures[tid] = tex
                t.set_tex_id(tid)
                t.set_status(imgui.ImTextureStatus.ok)
            elif t.status == imgui.ImTextureStatus.want_updates:
                tex = self.textures.get(int(t.get_tex_id()))
                if tex is not None:
                    pixels = t.get_pixels_array().reshape(t.height, t.width, 4)
                    for r in t.updates:
                        block = np.ascontiguousarray(pixels[r.y:r.y + r.h, r.x:r.x + r.w])
                        tex.write(block.tobytes(), viewport=(r.x, r.y, r.w, r.h))
                t.set_status(imgui.ImTextureStatus.ok)
            elif t.status == imgui.ImTextureStatus.want_destroy:
                tex = self.textures.pop(int(t.get_tex_id()), None)
                if tex is not None:
                    tex.release()
                t.set_status(imgui.ImTextureStatus.destroyed)

    def render(self, draw_data) -> None:
        """Upload this frame's draw data and draw all of it."""
        self.update_textures()
        self.upload(draw_data)
        self.redraw()

    def upload(self, draw_data) -> None:
        """Every list's vertices and indices into the buffers, and the draw commands into `commands`
        (kept, so that `redraw` can draw them again without a new ImGui frame)."""
        self.commands = []
        w, h = draw_data.display_size.x, draw_data.display_size.y
        fb_w, fb_h = int(w * draw_data.framebuffer_scale.x), int(h * draw_data.framebuffer_scale.y)
        self.fb_size = (fb_w, fb_h)
        if fb_w <= 0 or fb_h <= 0:
            return
        x0, y0 = draw_data.display_pos.x, draw_data.display_pos.y
        proj = np.array([[2 / w, 0, 0, -1 - 2 * x0 / w], [0, -2 / h, 0, 1 + 2 * y0 / h],
                         [0, 0, -1, 0], [0, 0, 0, 1]], dtype="f4")
        self.prog["u_proj"].write(proj.T.tobytes())
        sx, sy = draw_data.framebuffer_scale.x, draw_data.framebuffer_scale.y
        nearest = self.nearest and sx == 1.0 and sy == 1.0
        if nearest != self.nearest_now:
            self.nearest_now = nearest
            for tex in self.textures.values():
                tex.filter = (moderngl.NEAREST, moderngl.NEAREST) if nearest else (moderngl.LINEAR, moderngl.LINEAR)
        # All lists go up in one write per buffer, before the first draw (indices rebased to 32 bits): the
        # buffers then hold the whole frame for `redraw`, and no buffer the frame already read is rewritten
        # (a software renderer would finish rasterising everything so far first). Orphaning leaves last
        # frame's draws their own copy.
        vtx, idx = [], []
        n_vtx = n_idx = 0
        for cl in draw_data.cmd_lists:
            nv, ni = cl.vtx_buffer.size(), cl.idx_buffer.size()
            vtx.append(ctypes.string_at(cl.vtx_buffer.data_address(), nv * VERTEX_BYTES))
            ib = np.frombuffer(ctypes.string_at(cl.idx_buffer.data_address(), ni * self.index_size), self.index_type)
            idx.append(ib.astype(np.uint32) + np.uint32(n_vtx))
            for cmd in cl.cmd_buffer:
                c = cmd.clip_rect
                cx0, cy0 = (c.x - x0) * sx, (c.y - y0) * sy
                cx1, cy1 = (c.z - x0) * sx, (c.w - y0) * sy
                if cx1 <= cx0 or cy1 <= cy0:
                    continue
                # vtx_offset is always 0: the renderer does not declare renderer_has_vtx_offset
                self.commands.append(((int(cx0), int(fb_h - cy1), int(cx1 - cx0), int(cy1 - cy0)),
                                      int(cmd.get_tex_id()), cmd.elem_count, n_idx + cmd.idx_offset))
            n_vtx += nv
            n_idx += ni
        if n_idx:
            vb, ib = b"".join(vtx), np.concatenate(idx).tobytes()
            self.vbo.orphan(max(len(vb), self.vbo.size))
            self.ibo.orphan(max(len(ib), self.ibo.size))
            self.vbo.write(vb)
            self.ibo.write(ib)

    def redraw(self, clip: tuple[int, int, int, int] | None = None) -> None:
        """Draw the last uploaded commands again, into the current framebuffer; with `clip` (x, y from the
        bottom, w, h pixels) only what falls inside it."""
        fb_w, fb_h = self.fb_size
        if fb_w <= 0 or fb_h <= 0:
            return
        ctx = self.ctx
        ctx.viewport = (0, 0, fb_w, fb_h)
        ctx.enable_only(moderngl.BLEND)
        ctx.blend_equation = moderngl.FUNC_ADD
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        for (x, y, w, h), tid, count, first in self.commands:
            if clip is not None:
                x1, y1 = min(x + w, clip[0] + clip[2]), min(y + h, clip[1] + clip[3])
                x, y = max(x, clip[0]), max(y, clip[1])
                w, h = x1 - x, y1 - y
                if w <= 0 or h <= 0:
                    continue
            ctx.scissor = (x, y, w, h)
            tex = self.textures.get(tid)
            if tex is not None:
                tex.use(0)
            self.vao.render(moderngl.TRIANGLES, vertices=count, first=first)
        ctx.scissor = None
        ctx.disable(moderngl.BLEND)


# ----------------------------------------------------------------------------------------------------
# pygame -> ImGui

def _key_map() -> dict[int, object]:
    K = imgui.Key
    m = {pygame.K_TAB: K.tab, pygame.K_LEFT: K.left_arrow, pygame.K_RIGHT: K.right_arrow,
         pygame.K_UP: K.up_arrow, pygame.K_DOWN: K.down_arrow, pygame.K_PAGEUP: K.page_up,
         pygame.K_PAGEDOWN: K.page_down, pygame.K_HOME: K.home, pygame.K_END: K.end,
         pygame.K_INSERT: K.insert, pygame.K_DELETE: K.delete, pygame.K_BACKSPACE: K.backspace,
         pygame.K_SPACE: K.space, pygame.K_RETURN: K.enter, pygame.K_ESCAPE: K.escape,
         pygame.K_KP_ENTER: K.keypad_enter, pygame.K_LCTRL: K.left_ctrl, pygame.K_RCTRL: K.right_ctrl,
         pygame.K_LSHIFT: K.left_shift, pygame.K_RSHIFT: K.right_shift, pygame.K_LALT: K.left_alt,
         pygame.K_RALT: K.right_alt, pygame.K_PERIOD: K.period, pygame.K_MINUS: K.minus}
    for i in range(10):
        m[pygame.K_0 + i] = getattr(K, f"_{i}")
    for c in "acvxyz":
        m[getattr(pygame, f"K_{c}")] = getattr(K, c)
    return m


def _pad_map() -> dict[int, object]:
    K = imgui.Key
    return {pygame.CONTROLLER_BUTTON_A: K.gamepad_face_down, pygame.CONTROLLER_BUTTON_B: K.gamepad_face_right,
            pygame.CONTROLLER_BUTTON_X: K.gamepad_face_left, pygame.CONTROLLER_BUTTON_Y: K.gamepad_face_up,
            pygame.CONTROLLER_BUTTON_DPAD_UP: K.gamepad_dpad_up,
            pygame.CONTROLLER_BUTTON_DPAD_DOWN: K.gamepad_dpad_down,
            pygame.CONTROLLER_BUTTON_DPAD_LEFT: K.gamepad_dpad_left,
            pygame.CONTROLLER_BUTTON_DPAD_RIGHT: K.gamepad_dpad_right,
            pygame.CONTROLLER_BUTTON_LEFTSHOULDER: K.gamepad_l1, pygame.CONTROLLER_BUTTON_RIGHTSHOULDER: K.gamepad_r1,
            pygame.CONTROLLER_BUTTON_START: K.gamepad_start, pygame.CONTROLLER_BUTTON_BACK: K.gamepad_back}


PAD_NAV_TOGGLE = pygame.CONTROLLER_BUTTON_LEFTSTICK     # clicking the left stick switches pad: car / overlay


class PygameInput:
    """Feeds pygame events to ImGui; `handle` returns True when ImGui consumed the event.

    A gamepad drives the car until its left stick is clicked; then it navigates the overlay (ImGui's
    gamepad navigation: d-pad or left stick to move, A to activate, B to cancel, X menus) until the next
    click. The car keeps its last pad inputs released meanwhile."""

    def __init__(self):
        self.keys = _key_map()
        self.pad_keys = _pad_map()
        self.pad_nav = False
        io = imgui.get_io()
        io.backend_flags |= imgui.BackendFlags_.has_gamepad
        io.config_flags |= imgui.ConfigFlags_.nav_enable_gamepad

    def handle_pad(self, event) -> bool:
        """Route a controller event: True when it belongs to the overlay (navigation mode, or the toggle)."""
        t = event.type
        if t == pygame.CONTROLLERBUTTONDOWN and event.button == PAD_NAV_TOGGLE:
            self.pad_nav = not self.pad_nav
            return True
        if not self.pad_nav:
            return False
        io = imgui.get_io()
        if t in (pygame.CONTROLLERBUTTONDOWN, pygame.CONTROLLERBUTTONUP):
            key = self.pad_keys.get(event.button)
            if key is not None:
                io.add_key_event(key, t == pygame.CONTROLLERBUTTONDOWN)
            return True
        if t == pygame.CONTROLLERAXISMOTION:
            v = max(-1.0, min(1.0, event.value / 32767.0))
            K = imgui.Key
            if event.axis == pygame.CONTROLLER_AXIS_LEFTX:
                io.add_key_analog_event(K.gamepad_l_stick_left, v < -0.2, max(0.0, -v))
                io.add_key_analog_event(K.gamepad_l_stick_right, v > 0.2, max(0.0, v))
            elif event.axis == pygame.CONTROLLER_AXIS_LEFTY:
                io.add_key_analog_event(K.gamepad_l_stick_up, v < -0.2, max(0.0, -v))
                io.add_key_analog_event(K.gamepad_l_stick_down, v > 0.2, max(0.0, v))
            return True
        return False

    def handle(self, event) -> bool:
        io = imgui.get_io()
        t = event.type
        if t in (pygame.CONTROLLERBUTTONDOWN, pygame.CONTROLLERBUTTONUP, pygame.CONTROLLERAXISMOTION):
            return self.handle_pad(event)
        if t == pygame.MOUSEMOTION:
            io.add_mouse_pos_event(*event.pos)
            return io.want_capture_mouse
        if t in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP) and event.button in (1, 2, 3):
            io.add_mouse_pos_event(*event.pos)
            io.add_mouse_button_event({1: 0, 3: 1, 2: 2}[event.button], t == pygame.MOUSEBUTTONDOWN)
            return io.want_capture_mouse
        if t == pygame.MOUSEWHEEL:
            io.add_mouse_wheel_event(float(event.x), float(event.y))
            return io.want_capture_mouse
        if t in (pygame.KEYDOWN, pygame.KEYUP):
            # a key pressed while ImGui does not want the keyboard is the driver's: ImGui never hears of
            # it, so a driving key held while a text field takes focus cannot repeat into the field; every
            # release reaches both (returns False), so neither side is left with a key it thinks held
            down = t == pygame.KEYDOWN
            if down and not io.want_capture_keyboard:
                return False
            mods = pygame.key.get_mods()
            io.add_key_event(imgui.Key.mod_ctrl, bool(mods & pygame.KMOD_CTRL))
            io.add_key_event(imgui.Key.mod_shift, bool(mods & pygame.KMOD_SHIFT))
            io.add_key_event(imgui.Key.mod_alt, bool(mods & pygame.KMOD_ALT))
            key = self.keys.get(event.key)
            if key is not None:
                io.add_key_event(key, down)
            return down
        if t == pygame.TEXTINPUT:
            io.add_input_characters_utf8(event.text)
            return io.want_text_input
        if t == pygame.WINDOWFOCUSLOST:
            io.add_focus_event(False)
        elif t == pygame.WINDOWFOCUSGAINED:
            io.add_focus_event(True)
        return False
