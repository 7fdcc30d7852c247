"""Camera to phone in one process: capture, card reader, tracker, store, web server."""
