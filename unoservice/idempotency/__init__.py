"""``Idempotency-Key``: the first answer to a keyed request, kept and given again to
its retries. A small app of its own (label ``idempotency``): its record serves every
app's POSTs, so it belongs to none of them. The request handling is in `.http`."""
