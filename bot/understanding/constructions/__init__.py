"""The question shapes the bot reads, one module each (base.py says what a construction declares); their registry is
bot.understanding.registry."""
