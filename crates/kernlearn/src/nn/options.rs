//! The training options every network method reads (CKL, its baselines, DKMO): each
//! overrides one field of a family's [`TrainSettings`] defaults (CKL's thesis
//! settings, DKMO's paper settings).

use super::optim::OPTIMIZER_NAMES;
use super::TrainSettings;
use crate::options::{MethodOptions, OptionSpec, OptionValue};
use crate::Error;
use crate::Result;

/// `--optimizer`.
pub(crate) static OPTIMIZER: OptionSpec = OptionSpec::new("optimizer", OptionValue::Choice(&OPTIMIZER_NAMES), "Networks (ckl, rff-linear, dkmo, m-dkmo): sgd (momentum 0.5 rising to 0.99 over 10 rounds, the thesis's 10 epochs; default of ckl) or adam (AdamW; without decay = Adam; default of dkmo, the paper's)");
/// `--learning-rate`.
pub(crate) static LEARNING_RATE: OptionSpec = OptionSpec::new("learning-rate", OptionValue::Number, "Networks: learning rate ℓ > 0 (ckl: 0.01, the thesis's search draws log-uniformly from [1e-5, 0.2]; dkmo: 0.001, the paper's)");
/// `--weight-decay`.
pub(crate) static WEIGHT_DECAY: OptionSpec = OptionSpec::new(
    "weight-decay",
    OptionValue::Number,
    "Networks: weight decay λ ≥ 0 (L2 for sgd, decoupled for adam; default 0)",
);
/// `--epochs`.
pub(crate) static EPOCHS: OptionSpec = OptionSpec::new(
    "epochs",
    OptionValue::Count,
    "Networks: most training rounds, each an epoch or --round-steps steps when an epoch is longer (ckl: 10000, the thesis's epochs; dkmo: 100 epochs per training run)",
);
/// `--patience`.
pub(crate) static PATIENCE: OptionSpec = OptionSpec::new("patience", OptionValue::Count, "Networks: stop when the validation loss has not improved for this many rounds, the validation loss being measured after each (ckl: 100, the thesis's epochs; dkmo: 10 epochs); the best round's parameters are kept");
/// `--round-steps`.
pub(crate) static ROUND_STEPS: OptionSpec = OptionSpec::new("round-steps", OptionValue::Count, "Networks: longest training round in optimiser steps; a round (validation, patience, --epochs and the momentum ramp count rounds) is one epoch, or this many steps when an epoch has more (ckl: 512, so the thesis's per-epoch rule holds up to 65,536 training rows at batch 128 and patience stays 100 × 512 steps on larger sets; dkmo: 0; 0 = every round is an epoch)");
/// `--batch-size`.
pub(crate) static BATCH_SIZE: OptionSpec = OptionSpec::new(
    "batch-size",
    OptionValue::Count,
    "Networks: rows per mini-batch (ckl: 128; dkmo: 32, Keras's default)",
);
/// `--validation-fraction`.
pub(crate) static VALIDATION_FRACTION: OptionSpec = OptionSpec::new("validation-fraction", OptionValue::Number, "Networks: fraction of the training rows held out (stratified) for early stopping, in [0, 1) (ckl: 0.25, the thesis's; dkmo: 0.1; 0 = no early stopping)");

/// Every training option.
pub(crate) static TRAINING: &[&OptionSpec] = &[
    &OPTIMIZER,
    &LEARNING_RATE,
    &WEIGHT_DECAY,
    &EPOCHS,
    &PATIENCE,
    &BATCH_SIZE,
    &VALIDATION_FRACTION,
    &ROUND_STEPS,
];

/// The training options given (`--optimizer`, `--learning-rate`, …) on top of `t`, a
/// family's training defaults.
pub(crate) fn apply_training(o: &MethodOptions, t: &mut TrainSettings) -> Result<()> {
    if let Some(v) = o.parsed(&OPTIMIZER)? {
        t.optimizer = v;
    }
    if let Some(v) = o.number(&LEARNING_RATE)? {
        t.learning_rate = v;
    }
    if let Some(v) = o.number(&WEIGHT_DECAY)? {
        t.weight_decay = v;
    }
    if let Some(v) = o.count(&EPOCHS)? {
        t.max_epochs = v;
    }
    if let Some(v) = o.count(&PATIENCE)? {
        t.patience = v;
    }
    if let Some(v) = o.count(&BATCH_SIZE)? {
        t.batch_size = v;
    }
    if let Some(v) = o.number(&VALIDATION_FRACTION)? {
        t.validation_fraction = v;
    }
    if let Some(v) = o.count(&ROUND_STEPS)? {
        t.round_steps = (v > 0).then_some(v);
    }
    // Without a validation split nothing stops training early, so every epoch runs: a
    // long default (CKL's 10,000) would look like a hang. The user says how many.
    if t.validation_fraction == 0.0 && !o.is_given(&EPOCHS) && t.max_epochs > 1000 {
        return Err(Error::param(
            "validation-fraction",
            format!(
                "0 turns early stopping off, so all {} default epochs would run; pass \
                 «epochs» as well (or keep a validation split)",
                t.max_epochs
            ),
        ));
    }
    Ok(())
}
