//! Listeners and timers as drop-guards: what is added to a JS object or scheduled is
//! removed or cleared when the Rust value is dropped (never leaked with `forget()`).

use wasm_bindgen::prelude::*;

use super::{call, global};

type Callback = Closure<dyn FnMut(JsValue, JsValue)>;

/// A listener added with `target.<add>(type, fn)`; removed with `<remove>` on drop.
pub struct Listener {
    target: JsValue,
    remove: &'static str,
    event: Option<String>,
    callback: Callback,
}

impl Listener {
    /// `target.addEventListener(event, f)` / `removeEventListener`.
    pub fn dom(
        target: &JsValue,
        event: &str,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        Listener::with(
            target,
            "addEventListener",
            "removeEventListener",
            Some(event),
            f,
        )
    }

    /// `target.<add>(event?, f)` / `target.<remove>(event?, f)`.
    pub fn with(
        target: &JsValue,
        add: &'static str,
        remove: &'static str,
        event: Option<&str>,
        f: impl FnMut(JsValue, JsValue) + 'static,
    ) -> Result<Listener, JsValue> {
        let callback = Callback::new(f);
        let cb: &JsValue = callback.as_ref();
        match event {
            Some(e) => call(target, add, &[&JsValue::from_str(e), cb])?,
            None => call(target, add, &[cb])?,
        };
        Ok(Listener {
            target: target.clone(),
            remove,
            event: event.map(str::to_string),
            callback,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let cb: &JsValue = self.callback.as_ref();
        let _ = match &self.event {
            Some(e) => call(&self.target, self.remove, &[&JsValue::from_str(e), cb]),
            None => call(&self.target, self.remove, &[cb]),
        };
    }
}

/// A `setInterval` / `setTimeout` timer, cleared on drop.
pub struct Timer {
    id: JsValue,
    clear: &'static str,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    pub fn interval(ms: f64, f: impl FnMut() + 'static) -> Result<Timer, JsValue> {
        Timer::start("setInterval", "clearInterval", ms, f)
    }

    pub fn timeout(ms: f64, f: impl FnMut() + 'static) -> Result<Timer, JsValue> {
        Timer::start("setTimeout", "clearTimeout", ms, f)
    }

    fn start(
        set: &str,
        clear: &'static str,
        ms: f64,
        f: impl FnMut() + 'static,
    ) -> Result<Timer, JsValue> {
        let callback = Closure::<dyn FnMut()>::new(f);
        let id = call(&global(), set, &[callback.as_ref(), &JsValue::from_f64(ms)])?;
        Ok(Timer {
            id,
            clear,
            _callback: callback,
        })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = call(&global(), self.clear, &[&self.id]);
    }
}
