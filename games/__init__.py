"""Games: tables, seats, the event log and everything that changes them."""
