"""The demo crowd file, installed as the data package bot.resources.crowd (see crowd/README.md and bot/resources)."""
