//! The SMO solver and the kernel machines built on it.
