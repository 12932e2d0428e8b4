"""Watches the X screen for pictures numbered by a barcode, and notes when each first appears.

A player presents pictures whose top strip carries the picture's number as BITS boxes, white for
1 and black for 0, after a box that is always white (so a black window reads as nothing), drawn
by ffmpeg with `barcode_filter()`. The watcher reads one row of the
screen through that strip every millisecond (XGetImage on the root window, so it sees what any
player drew, however it draws) and logs, on CLOCK_MONOTONIC, the first time each number is seen.
That is a presentation log for players that keep none (ffplay, mpv), measured the same way for
hplayer.
"""
import ctypes
import ctypes.util
import threading
import time

BITS = 11          # numbers up to 2047: 68 s at 30 fps
BOX_WIDTH = 1 / 14  # of the picture's width, per box: the marker, then the bits
STRIP = 1 / 10      # of the picture's height


def barcode_filter():
    """An ffmpeg filter chain that draws the frame number `n` into the picture's top strip."""
    boxes = [f"drawbox=x=0:y=0:w=iw:h=ih*{STRIP}:color=black:t=fill",
             f"drawbox=x=iw*{BOX_WIDTH}*0.5:y=0:w=iw*{BOX_WIDTH}:h=ih*{STRIP}:color=white:t=fill"]
    for bit in range(BITS):
        boxes.append(f"drawbox=x=iw*{BOX_WIDTH}*{bit + 1.5}:y=0:w=iw*{BOX_WIDTH}:h=ih*{STRIP}:color=white:t=fill"
                     f":enable='mod(floor(n/{2 ** bit}),2)'")
    return ",".join(boxes)


class _XImage(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
                ("format", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_ubyte)),
                ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
                ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
                ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int),
                ("bits_per_pixel", ctypes.c_int)]


class ScreenWatcher:
    """Reads the barcode of a picture shown at (left, top, width, height) on the display."""

    def __init__(self, left, top, width, height):
        self.x11 = ctypes.CDLL(ctypes.util.find_library("X11"))
        self.x11.XOpenDisplay.restype = ctypes.c_void_p
        self.x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x11.XDefaultRootWindow.restype = ctypes.c_ulong
        self.x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self.x11.XGetImage.restype = ctypes.POINTER(_XImage)
        self.x11.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        self.x11.XDestroyImage.argtypes = [ctypes.POINTER(_XImage)]
        self.x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        for name in ("XDisplayWidth", "XDisplayHeight"):
            getattr(self.x11, name).argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.display = self.x11.XOpenDisplay(None)
        if not self.display:
            raise RuntimeError("screen watch: cannot open the X display")
        # Xlib's default handler of an X error exits the process, leaving the players running:
        # a picture off the screen (the one X error a read here can meet) is refused up front.
        screen = (self.x11.XDisplayWidth(self.display, 0), self.x11.XDisplayHeight(self.display, 0))
        if left + width > screen[0] or top + height > screen[1]:
            self.x11.XCloseDisplay(self.display)
            raise RuntimeError(f"screen watch: the screen is {screen[0]}x{screen[1]}, smaller than the picture's place")
        self.root = self.x11.XDefaultRootWindow(self.display)
        self.left, self.width = left, width
        self.row = top + int(height * STRIP / 2)
        # Three points in the middle of each box (the marker's first), relative to the row read:
        # they must agree, which a half-drawn picture or a patterned background does not.
        spread = max(1, int(width * BOX_WIDTH / 8))
        self.samples = [[int(width * BOX_WIDTH * (box + 1)) + d for d in (-spread, 0, spread)] for box in range(BITS + 1)]
        self.first_seen = {}
        self._stop = threading.Event()
        self._thread = None
        self._failure = None

    def read(self):
        """The number on screen now, or None where the strip is blank, mid-change or not ours."""
        image = self.x11.XGetImage(self.display, self.root, self.left, self.row, self.width, 1,
                                   0xFFFFFFFF, 2)  # AllPlanes, ZPixmap
        if not image:
            return None
        try:
            if image.contents.bits_per_pixel != 32:
                raise RuntimeError("screen watch: expected a 24-bit screen (32 bits per pixel)")
            data = image.contents.data
            # The strip's edges are black and its marker white in every numbered picture.
            if data[1] > 60 or data[(self.width - 1) * 4 + 1] > 60:
                return None
            boxes = []
            for points in self.samples:
                greens = [data[x * 4 + 1] for x in points]
                if all(g >= 190 for g in greens):
                    boxes.append(1)
                elif all(g <= 60 for g in greens):
                    boxes.append(0)
                else:
                    return None
            if boxes[0] != 1:
                return None
            return sum(bit << index for index, bit in enumerate(boxes[1:]))
        finally:
            self.x11.XDestroyImage(image)

    def _watch(self):
        # A number counts once read twice running (a read may catch a picture half drawn), from
        # the first of the two reads.
        last, candidate, since = None, None, None
        try:
            while not self._stop.is_set():
                number = self.read()
                now = time.monotonic()
                if number is not None and number == candidate and number != last:
                    self.first_seen.setdefault(number, since)
                    last = number
                elif number != candidate:
                    candidate, since = number, now
                time.sleep(0.001)
        except Exception as failure:  # told by stop(), on the main thread
            self._failure = failure

    def start(self):
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()
        self.x11.XCloseDisplay(self.display)
        if self._failure:
            raise self._failure
        return self.first_seen
