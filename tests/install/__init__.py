"""The installed distribution: the envpool-ng name beside the reference's envpool, and partial
installs of the extras."""
