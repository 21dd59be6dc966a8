//! Request ids on a shared channel. A `BroadcastChannel` carries every client's traffic
//! to every client, and two clients number their requests alike (both send `initialize`
//! as id 1), so an answer meant for one would settle the other's request. Before sending,
//! a client tags the ids it owns — a request's `id` and `_meta.progressToken`, a
//! cancellation's `requestId` — with its instance id (`"<instanceId>#<id as JSON>"`);
//! on receipt it restores its own and drops answers and progress tagged for anyone else.
//! Pure Rust on JSON values.

use crate::protocol::json_text;
use serde_json::Value;

/// One client's tag.
#[derive(Clone, Debug)]
pub struct IdNamespace {
    prefix: String,
}

impl IdNamespace {
    /// The tag of the client whose instance id is `instance_id`.
    pub fn new(instance_id: &str) -> IdNamespace {
        IdNamespace {
            prefix: format!("{instance_id}#"),
        }
    }

    fn tag(&self, v: &mut Value) {
        let mut tagged = self.prefix.clone();
        json_text::write_value(&mut tagged, v);
        *v = Value::String(tagged);
    }

    /// The original of a value this client tagged; `None` for anything else.
    fn untag(&self, v: &Value) -> Option<Value> {
        let s = v.as_str()?.strip_prefix(&self.prefix)?;
        crate::protocol::values::parse(s).ok()
    }

    /// Tags an outgoing message in place.
    pub fn outgoing(&self, message: &mut Value) {
        let Some(obj) = message.as_object_mut() else {
            return;
        };
        let is_request = obj.contains_key("method") && obj.contains_key("id");
        if is_request {
            if let Some(id) = obj.get_mut("id") {
                self.tag(id);
            }
            if let Some(token) = obj
                .get_mut("params")
                .and_then(|p| p.get_mut("_meta"))
                .and_then(|m| m.get_mut("progressToken"))
            {
                self.tag(token);
            }
        } else if obj.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            if let Some(id) = obj.get_mut("params").and_then(|p| p.get_mut("requestId")) {
                self.tag(id);
            }
        }
    }

    /// Restores an incoming message in place; `false` when it is an answer (or progress)
    /// for another client.
    pub fn incoming(&self, message: &mut Value) -> bool {
        let Some(obj) = message.as_object_mut() else {
            return true;
        };
        let method = obj.get("method").and_then(Value::as_str).map(String::from);
        match method.as_deref() {
            // An answer: ours only (an error without a readable id is kept).
            None => match obj.get("id") {
                None | Some(Value::Null) => true,
                Some(id) => match self.untag(id) {
                    Some(orig) => {
                        obj.insert("id".into(), orig);
                        true
                    }
                    None => false,
                },
            },
            Some("notifications/progress") => {
                let token = obj
                    .get_mut("params")
                    .and_then(|p| p.get_mut("progressToken"));
                match token {
                    Some(t) => match self.untag(t) {
                        Some(orig) => {
                            *t = orig;
                            true
                        }
                        None => false,
                    },
                    None => true,
                }
            }
            // The server's own requests and notifications are not ours to rewrite.
            Some(_) => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tags_what_the_client_owns_and_restores_only_its_own() {
        let me = IdNamespace::new("me");
        let mut req = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1}}});
        me.outgoing(&mut req);
        assert_eq!(req["id"], json!("me#1"));
        assert_eq!(req["params"]["_meta"]["progressToken"], json!("me#1"));
        let mut cancel =
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}});
        me.outgoing(&mut cancel);
        assert_eq!(cancel["params"]["requestId"], json!("me#1"));
        let mut reply = json!({"jsonrpc":"2.0","id":"s1","result":{}});
        me.outgoing(&mut reply);
        assert_eq!(
            reply["id"],
            json!("s1"),
            "answers to the server keep the server's ids"
        );

        let mut ours = json!({"jsonrpc":"2.0","id":"me#1","result":{}});
        assert!(me.incoming(&mut ours));
        assert_eq!(ours["id"], json!(1));
        let mut string_id = json!({"jsonrpc":"2.0","id":"me#\"a\"","result":{}});
        assert!(me.incoming(&mut string_id));
        assert_eq!(string_id["id"], json!("a"));
        for id in [json!("other#1"), json!(1), json!("me#x")] {
            let mut theirs = json!({"jsonrpc":"2.0","id": id,"result":{}});
            assert!(!me.incoming(&mut theirs), "{theirs}");
        }
        let mut progress = json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"me#2","progress":1}});
        assert!(me.incoming(&mut progress));
        assert_eq!(progress["params"]["progressToken"], json!(2));
        let mut foreign = json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x#2","progress":1}});
        assert!(!me.incoming(&mut foreign));
        let mut server_req = json!({"jsonrpc":"2.0","id":3,"method":"ping"});
        assert!(me.incoming(&mut server_req));
        assert_eq!(server_req["id"], json!(3));
        let mut anon = json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}});
        assert!(me.incoming(&mut anon));
    }
}
