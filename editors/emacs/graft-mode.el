;;; graft-mode.el --- major mode for graft rule files  -*- lexical-binding: t -*-

;; A major mode for graft's rule language (graft-rules(5)): highlighting of
;; the token classes of grammar/rules_lex.l, comments, and graft lsp
;; through eglot.  tests/editors_syntax.sh checks the face of one token of
;; each class in batch mode.
;;
;; Usage:
;;   (add-to-list 'load-path "/path/to/graft/editors/emacs")
;;   (require 'graft-mode)
;;   (add-hook 'graft-mode-hook #'eglot-ensure)   ; Emacs 29, or eglot from ELPA

;;; Code:

(defconst graft-mode-keywords
  '("let" "op" "fn" "include" "where" "if" "else" "partition" "dominates"))

(defconst graft-mode-types
  '("Tensor" "bool" "int8" "int16" "int32" "int64" "uint8" "uint16" "uint32"
    "uint64" "float16" "float32" "float64" "bfloat16"))

(defconst graft-mode-font-lock
  `((,(regexp-opt graft-mode-keywords 'symbols) . font-lock-keyword-face)
    (,(regexp-opt '("True" "False" "None") 'symbols) . font-lock-constant-face)
    (,(regexp-opt graft-mode-types 'symbols) . font-lock-type-face)
    ;; a rule's name: a name in column 1 before ':=' or an attribute list
    ("^\\([A-Za-z_][A-Za-z0-9_]*\\)[ \t]*\\(?::=\\|\\[\\)" 1 font-lock-function-name-face)
    ;; an op class, <elementwise>
    ("<[A-Za-z_][A-Za-z0-9_]*>" . font-lock-type-face)
    ;; a call: an op (dotted) name before '('
    ("\\_<\\([A-Za-z_][A-Za-z0-9_]*\\(?:\\.[A-Za-z_][A-Za-z0-9_]*\\)*\\)[ \t]*("
     1 font-lock-builtin-face)
    ("\\_<[0-9]+\\(?:\\.[0-9]*\\)?\\(?:[eE][-+]?[0-9]+\\)?\\(?:f16\\|f32\\|f64\\|f\\|[iu]\\(?:8\\|16\\|32\\|64\\)\\)?\\_>"
     . font-lock-constant-face)
    (":=\\|=>\\|->\\|==\\|!=\\|<=\\|>=\\|&&\\|||\\|\\.\\.\\.\\|\\*\\*\\|@"
     . font-lock-keyword-face))
  "Highlighting of graft rule files: one rule per token class of rules_lex.l.")

(defvar graft-mode-syntax-table
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?# "<" table)
    (modify-syntax-entry ?\n ">" table)
    (modify-syntax-entry ?/ ". 14" table)
    (modify-syntax-entry ?* ". 23" table)
    (modify-syntax-entry ?\" "\"" table)
    ;; operators are punctuation (the standard table makes =<>+-&| symbol
    ;; constituents, which would glue "axis=True" into one symbol)
    (dolist (c '(?= ?< ?> ?+ ?- ?& ?| ?! ?@ ?: ?, ?\;))
      (modify-syntax-entry c "." table))
    (modify-syntax-entry ?_ "_" table)
    (modify-syntax-entry ?. "_" table)
    table)
  "Comments (# to the end of the line, /* */), strings, dotted names.")

;;;###autoload
(define-derived-mode graft-mode prog-mode "graft"
  "Major mode for graft rule files."
  (setq-local comment-start "# ")
  (setq-local comment-end "")
  (setq-local font-lock-defaults '(graft-mode-font-lock)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.graft\\'" . graft-mode))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs '(graft-mode "graft" "lsp")))

(provide 'graft-mode)
;;; graft-mode.el ends here
