# The window manager maps through LUT windows (see segment.sh).
WINDOWS=lut
