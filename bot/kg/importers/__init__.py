"""Importers that turn other KG layouts into moviebot bundles."""
