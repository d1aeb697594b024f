"""moviebot: an offline chatbot that answers film questions from an RDF knowledge graph."""

__version__ = "0.1.0"
