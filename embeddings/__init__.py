"""The demo KG's TransE embeddings, installed as the data package bot.resources.embeddings (see embeddings/README.md)."""
