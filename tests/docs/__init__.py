"""The docs: links, the site, and what users read when they get something wrong."""
