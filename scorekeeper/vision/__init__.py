"""Frames to card detections. Importing this package stays light: models load on first use."""
