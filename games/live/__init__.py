"""Live play: push streams and long polls woken by the commits of game changes."""
