"""make clients: the threads each HTTP client blocks, and its download speed."""
