//! Frames, headers and bodies from arbitrary bytes: the input is cut into size-prefixed frames
//! (1 MiB maximum), and every frame is decoded as a request (header, then body by api key and
//! version) and walked by the schema walker; its bytes are also tried as a response of the api
//! and version named by the first three input bytes. Nothing may panic, abort or allocate
//! more than the input justifies.

#![no_main]

use bytes::{Bytes, BytesMut};
use libfuzzer_sys::fuzz_target;
use protocol::frame::FrameReader;
use protocol::request::decode_request_frame;
use protocol::response::decode_response_frame;
use protocol::schema::walk::{walk_request_frame, walk_response_frame};
use protocol::Api;

fuzz_target!(|data: &[u8]| {
    let response_api = data.first().map(|&i| Api::ALL[usize::from(i) % Api::ALL.len()]);
    let response_version = data.get(1..3).map(|v| i16::from_be_bytes([v[0], v[1]]) % 24);
    let reader = FrameReader::with_max_frame_size(1 << 20);
    let mut buf = BytesMut::from(data);
    while let Ok(Some(body)) = reader.split(&mut buf) {
        let _ = decode_request_frame(body.clone());
        let mut frame = (body.len() as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        let _ = walk_request_frame(&frame);
        if let (Some(api), Some(version)) = (response_api, response_version) {
            let _ = decode_response_frame(api, version, Bytes::copy_from_slice(&body));
            let _ = walk_response_frame(api, version, &frame);
        }
    }
});
