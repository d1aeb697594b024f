"""The demo KG bundle, installed as the data package bot.resources.kg (see kg/README.md and bot/resources)."""
