"""HTTP endpoints for games, by capability: `lobby`, `play`, `log` (events, log and
replay), `streams` and the players' `profiles`. Thin: validate the shape, call a
service or selector, render. No rule of the game lives here; what the schema says
to client developers is in `openapi_text`."""
