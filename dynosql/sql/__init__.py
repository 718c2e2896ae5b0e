"""SQL text → typed statements. See ``grammar/README.md`` for the accepted language."""

from dynosql.sql.parse import parse, parse_chunk, parse_script
from dynosql.sql.split import Chunk, is_complete, split_script

__all__ = ["Chunk", "is_complete", "parse", "parse_chunk", "parse_script", "split_script"]
