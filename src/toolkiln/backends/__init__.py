"""Backends: printers (canonical text and JSON) and, later, n8n workflow JSON."""
