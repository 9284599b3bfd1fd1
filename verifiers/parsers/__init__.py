"""Note formats: one parser per format over the shared index of :mod:`.abstract`."""
