//! Placeholder: the Node binding lands with its issue.
