"""make sweep: requests in flight, memory per request in flight, and where a request's CPU went."""
