"""A terminal client for the UNO service that speaks only its HTTP API.

python -m unoclient play [--server URL] [--name NAME] [--bots 3] [--rules stacking,jump_in]
"""
