//! Placeholder: the Python binding lands with its issue.
