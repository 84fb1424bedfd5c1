# maps/ - level geometry: generated levels and the walker benchmark for now.
