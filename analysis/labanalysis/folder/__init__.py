"""Reading run folders through their declarations (run-folder.json, servers.json, the manifest): the bottom layer but stats."""
