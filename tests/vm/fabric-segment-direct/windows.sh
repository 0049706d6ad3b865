# The window manager maps through direct windows, which the segment's
# owner translates when asked over messaging (see segment.sh).
WINDOWS=direct
