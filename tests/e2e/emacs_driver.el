;;; emacs_driver.el --- drive Emacs Eglot against `handrail lsp' for tests/e2e/test_emacs_eglot.py  -*- lexical-binding: t -*-

;; Environment: HR_WORKSPACE (the workspace folder), HR_COMMAND (the server command, tab-separated),
;; HR_OUT (where the results go, as JSON).  Prompts are answered by Eglot's own handler of
;; window/showMessageRequest; only `completing-read' (the user at the minibuffer) is scripted:
;; an answer, `ret' (RET on the pre-filled default) or `quit' (C-g).

(require 'eglot)
(require 'json)
(require 'seq)

;;; The snippet the README shows (section "Emacs (Eglot)"), verbatim.
(defvar handrail-last-session nil "The session of the last `handrail-ask'.")

(defun handrail-ask (prompt &optional session-id)
  "Ask handrail PROMPT without blocking Emacs; the answer arrives as a message."
  (interactive (list (read-string "Ask handrail: ")))
  (let* ((args (if session-id (list :prompt prompt :sessionId session-id) (list :prompt prompt)))
         (started (eglot-execute (eglot--current-server-or-lose)
                                 (list :command "handrail.startAsk" :arguments (vector args)))))
    (setq handrail-last-session (plist-get started :sessionId))))

(defun handrail-cancel ()
  "Stop the turn of the last `handrail-ask'."
  (interactive)
  (eglot-execute (eglot--current-server-or-lose)
                 (list :command "handrail.cancel" :arguments (vector (list :sessionId handrail-last-session)))))
;;; End of the snippet.

(defvar hr-answers nil "What the user answers to the next prompts: a title, `ret' or `quit'.")
(defvar hr-prompts nil "The prompts shown, newest first.")
(defvar hr-chat nil "The handrail/chat notifications, newest first.")
(defvar hr-messages nil "What Eglot showed in the echo area, newest first.")
(defvar hr-warnings nil "jsonrpc's warnings (\"deleting it!\" means it killed the server).")

(advice-add 'completing-read :around
            (lambda (orig prompt collection &rest args)
              (if (not (string-match-p "\\[eglot\\] Server reports" prompt))
                  (apply orig prompt collection args)
                (push (list (cons 'prompt (substring-no-properties prompt))
                            (cons 'choices (vconcat collection))
                            (cons 'default (nth 2 args)))
                      hr-prompts)
                (let ((answer (pop hr-answers)))
                  (cond ((eq answer 'quit) (signal 'quit nil))
                        ((eq answer 'ret) (nth 2 args)) ; Eglot pre-fills the input with the first action
                        (t answer))))))

(advice-add 'eglot--message :before
            (lambda (format &rest args) (push (substring-no-properties (apply #'format format args)) hr-messages)))
(advice-add 'jsonrpc--warn :before
            (lambda (format &rest args) (push (apply #'format format args) hr-warnings)))

(cl-defmethod eglot-handle-notification (_server (_method (eql handrail/chat)) &rest params)
  (push params hr-chat))

(defun hr-wait (predicate what &optional seconds)
  "Wait for PREDICATE as a user's Emacs waits for input; an error naming WHAT after SECONDS.
`sit-for' reads input like the command loop, and with it the file-notify events Eglot's
watches raise (the lock file Emacs makes when a buffer is first modified); waiting in
`accept-process-output' alone leaves them unread, and while they are Emacs runs no
process sentinel, so jsonrpc would kill the server at shutdown in a session no user has."
  (let ((deadline (+ (float-time) (or seconds 60))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      ;; a C-g at a prompt ends at the command loop, as it would interactively
      (condition-case nil (sit-for 0.05) (quit nil)))
    (or (funcall predicate) (error "Timed out waiting for %s" what))))

(defun hr-chat-event (session kind)
  "The chat notification KIND of SESSION, if one came."
  (seq-find (lambda (e) (and (equal (plist-get e :kind) kind) (equal (plist-get e :sessionId) session))) hr-chat))

(defun hr-turn (prompt answers)
  "Ask PROMPT without blocking, the user answering ANSWERS; the turn's end."
  (setq hr-answers answers)
  (let ((session (handrail-ask prompt)))
    (hr-wait (lambda () (hr-chat-event session "turnEnd")) prompt)
    (hr-chat-event session "turnEnd")))

(defun hr-connect ()
  "Open notes.txt in the workspace and connect Eglot to handrail."
  (let ((workspace (file-name-as-directory (getenv "HR_WORKSPACE")))
        (command (split-string (getenv "HR_COMMAND") "\t")))
    (setq eglot-server-programs
          `((text-mode . (,@command :initializationOptions (:promptTimeout 2))))
          eglot-sync-connect t)
    (find-file (expand-file-name "notes.txt" workspace))
    (text-mode)
    (apply #'eglot (eglot--guess-contact))
    (hr-wait #'eglot-current-server "the connection")
    (eglot-current-server)))

(defun hr-shut-down (server)
  "Shut SERVER down as Eglot does; how its process ended, and what it wrote to stderr."
  (let ((process (jsonrpc--process server)))
    (eglot-shutdown server nil nil t)  ; keeping its buffers, for the server's stderr
    (list (cons 'stderr (with-current-buffer (jsonrpc-stderr-buffer server) (buffer-string)))
          (cons 'processStatus (symbol-name (process-status process)))
          (cons 'exitStatus (process-exit-status process)))))

(defun hr-run ()
  "Every step of the test; the results as an alist."
  (let* ((results nil))
    (let* ((server (hr-connect))
           (notes (current-buffer)))
      ;; 1. an edit after é ☕ 🐍, its prompt answered (the user picks "Allow once"; RET would deny)
      (push (cons 'edit (hr-turn "edit notes" '("Allow once"))) results)
      (push (cons 'editPrompt (car hr-prompts)) results)
      (hr-wait (lambda () (with-current-buffer notes (string-match-p "BETA" (buffer-string)))) "the edit")
      (push (cons 'buffer (with-current-buffer notes (buffer-substring-no-properties (point-min) (point-max))))
            results)
      ;; 2. a prompt dismissed with C-g: never answered, so denied after the wait
      (push (cons 'dismissed (hr-turn "make x" '(quit))) results)
      ;; 3. a prompt answered with RET: the pre-filled first action, Deny
      (push (cons 'ret (hr-turn "make y" '(ret))) results)
      ;; 4. cancel a turn while the model is still answering
      (let ((session (handrail-ask "wait")))
        (hr-wait (lambda () (hr-chat-event session "turnStart")) "the held turn")
        (push (cons 'cancelAnswer (handrail-cancel)) results)
        (hr-wait (lambda () (hr-chat-event session "turnEnd")) "the cancelled turn")
        (push (cons 'cancelled (hr-chat-event session "turnEnd")) results))
      ;; 5. shut down (how the process ended is reported; see the test)
      (setq results (append (hr-shut-down server) results)))
    (push (cons 'messages (vconcat (reverse hr-messages))) results)
    (push (cons 'prompts (vconcat (reverse hr-prompts))) results)
    (push (cons 'warnings (vconcat (reverse hr-warnings))) results)
    results))

(let ((out (getenv "HR_OUT")))
  (condition-case err
      (let ((results (hr-run)))
        (with-temp-file out (insert (json-encode results))))
    (t (with-temp-file out (insert (json-encode (list (cons 'error (format "%S" err))
                                                      (cons 'messages (vconcat (reverse hr-messages)))
                                                      (cons 'warnings (vconcat (reverse hr-warnings))))))))))
(kill-emacs 0)
