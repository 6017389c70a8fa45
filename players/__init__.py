"""Players: guest accounts, tokens and statistics."""
