"""Entities: single-table designs in SQL (entity definitions, key templates, discovery)."""
