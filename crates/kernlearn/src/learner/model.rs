//! [`AnyModel`]: any fitted model of any family, behind the one [`Predictor`]
//! interface; what a fit returns and what a model file stores (as `{"kind": KIND,
//! "fitted": …}`, [`Model::KIND`] naming the model type; reading a file back goes
//! through the registry of every family's model kinds, `crate::method`).

use crate::predictor::Predictor;
use serde::de::DeserializeOwned;
use serde::ser::SerializeStruct;
use serde::Serialize;
use std::any::Any;
use std::fmt;

/// A fitted model type that can be stored in a model file: its [`Predictor`]
/// behaviour, serde's (de)serialisation and [`Model::KIND`], its tag in the file.
pub trait Model:
    Predictor + Serialize + DeserializeOwned + Clone + PartialEq + fmt::Debug + Send + Sync + 'static
{
    /// The model's tag in model files (`"svm"`, `"knpl"`, …); unique across families.
    const KIND: &'static str;
}

/// The object-safe face of a [`Model`] (every model type has it).
trait DynModel: Predictor + erased_serde::Serialize + fmt::Debug + Send + Sync {
    fn kind(&self) -> &'static str;
    fn clone_box(&self) -> Box<dyn DynModel>;
    fn eq_dyn(&self, other: &dyn DynModel) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Model> DynModel for T {
    fn kind(&self) -> &'static str {
        T::KIND
    }
    fn clone_box(&self) -> Box<dyn DynModel> {
        Box::new(self.clone())
    }
    fn eq_dyn(&self, other: &dyn DynModel) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Any fitted model: what [`crate::learner::FittedMethod`] carries, the CLI and the
/// bindings use through [`Predictor`], and a model file stores.
pub struct AnyModel(Box<dyn DynModel>);

impl AnyModel {
    /// Wraps a fitted model.
    pub fn new<T: Model>(model: T) -> Self {
        Self(Box::new(model))
    }

    /// The model's tag in model files ([`Model::KIND`]).
    pub(crate) fn kind(&self) -> &'static str {
        self.0.kind()
    }

    /// The model as its own type, when it is a `T`.
    pub fn downcast_ref<T: Model>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref()
    }

    /// A `T` read from the `fitted` part of a model file.
    pub(crate) fn decode<T: Model>(fitted: serde_json::Value) -> serde_json::Result<Self> {
        T::deserialize(fitted).map(Self::new)
    }

    fn inner(&self) -> &(dyn DynModel + 'static) {
        &*self.0
    }
}

impl Clone for AnyModel {
    fn clone(&self) -> Self {
        Self(self.0.clone_box())
    }
}

impl PartialEq for AnyModel {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_dyn(other.inner())
    }
}

impl fmt::Debug for AnyModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple(self.kind()).field(&self.0).finish()
    }
}

/// `{"kind": KIND, "fitted": the model}`, the layout of model files since 0.1.0.
impl Serialize for AnyModel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("AnyModel", 2)?;
        st.serialize_field("kind", self.kind())?;
        st.serialize_field("fitted", &Fitted(self.inner()))?;
        st.end()
    }
}

/// A model as serde's `Serialize`.
struct Fitted<'a>(&'a dyn DynModel);

impl Serialize for Fitted<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        erased_serde::serialize(self.0, s)
    }
}

/// A fitted model is used through its own [`Predictor`] implementation: every method is
/// reached through the trait object itself, so no forwarding can leave one out.
impl std::ops::Deref for AnyModel {
    type Target = dyn Predictor + 'static;
    fn deref(&self) -> &(dyn Predictor + 'static) {
        self.inner()
    }
}

impl<T: Model> From<T> for AnyModel {
    fn from(model: T) -> Self {
        Self::new(model)
    }
}
