"""The env families of cpp/envs, one folder each, against their reference implementations; the
families' shared layout and rendering."""
