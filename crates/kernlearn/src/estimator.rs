//! The one interface every method implements, so the CLI and bindings treat all alike.
