"""The SPARQL templates, installed as the data package bot.resources.templates (see bot/resources)."""
