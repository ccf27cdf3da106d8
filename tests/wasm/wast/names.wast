;; Export names are byte strings: an empty name, and names that differ only after a NUL
;; byte, are different exports (from the official suite's names.wast).
(module
  (func (export "") (result i32) (i32.const 0))
  (func (export "\00") (result i32) (i32.const 1))
  (func (export "\00a") (result i32) (i32.const 2))
  (func (export "a\00") (result i32) (i32.const 3))
  (func (export "a") (result i32) (i32.const 4))
  (func (export " ") (result i32) (i32.const 5))
)
(assert_return (invoke "") (i32.const 0))
(assert_return (invoke "\00") (i32.const 1))
(assert_return (invoke "\00a") (i32.const 2))
(assert_return (invoke "a\00") (i32.const 3))
(assert_return (invoke "a") (i32.const 4))
(assert_return (invoke " ") (i32.const 5))
