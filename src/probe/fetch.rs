//! One HTTP GET through the probe's stack (plain or rustls, the same roots and `--cacert`, one
//! deadline for the whole exchange, a byte cap): what `mcpconf lock` asks the MCP registry with.

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::http::{Ctx, HttpConn, parse_url};
use super::proxy::Proxies;
use super::scrub::Secrets;
use super::session::Talk;
use super::tls::Tls;

/// `GET url` (through `proxy`'s choice for it): the status and at most `max` bytes of the body;
/// an error sentence (no secret: the URL's query and the proxy's credentials are not repeated)
/// when the exchange fails or the body is larger than `max`.
pub fn get(
    url: &str,
    timeout: Duration,
    (cacert, proxy): (Option<PathBuf>, &Proxies),
    max: usize,
) -> Result<(u16, Vec<u8>), String> {
    let deadline = Instant::now() + timeout;
    let parsed = parse_url(url).map_err(|f| f.message)?;
    let secrets = Secrets::default();
    let tls = Tls::new(cacert);
    let conn = HttpConn::new(
        parsed.clone(),
        Vec::new(),
        Ctx {
            secrets: &secrets,
            tls: &tls,
            proxy,
            timeout,
            talk: Talk::default(),
        },
    );
    // The exchange's own cap is the probe's (32 MiB): an answer over `max` is said in `max`'s
    // terms whichever check caught it.
    let too_large = || format!("the answer is larger than {} MiB", max >> 20);
    let resp = conn
        .exchange_at(&parsed, "GET", None, deadline, "the request")
        .map_err(|f| {
            if f.code == super::code::FailureCode::OutputTooLarge {
                too_large()
            } else {
                f.message
            }
        })?;
    let status = resp.status;
    let mut body = Vec::new();
    resp.body
        .take(max as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::TimedOut
                || e.kind() == std::io::ErrorKind::WouldBlock
            {
                format!(
                    "no whole answer within the {}s timeout",
                    timeout.as_secs_f64()
                )
            } else if body.len() > max {
                too_large()
            } else {
                format!("reading the answer: {e}")
            }
        })?;
    if body.len() > max {
        return Err(too_large());
    }
    Ok((status, body))
}
