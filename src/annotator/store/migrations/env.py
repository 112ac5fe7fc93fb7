"""Alembic environment: runs on the connection the app passes in (never from a .ini URL)."""

from alembic import context

from annotator.store.schema import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=True,  # SQLite cannot ALTER most things; batch mode rebuilds tables
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
