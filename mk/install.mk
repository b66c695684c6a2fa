# SPDX-License-Identifier: MIT
# mk/install.mk — `make install` / `make uninstall` (PREFIX, DESTDIR and the directories of the top
# Makefile honoured). The CLI finds the engine in $(ENGINEDIR) (compiled in through ETCD_FIO_LIBDIR; a new
# value rebuilds it), so PREFIX and ENGINEDIR must be the same at build and install time (`make install
# PREFIX=/usr` after `make` rebuilds the CLI); DESTDIR only stages the tree (packages, the install test).
INSTALL    ?= install

FIOR_PC    := $(BUILD)/libfioreport.pc
MAN_PAGES  := man/etcd-fio.1 man/libfioreport.3 man/etcdwal.7

# The .pc is generated so that it names the real PREFIX (and the header's version, FIOR_VERSION in
# libreport/rules.mk) (not the DESTDIR staging path). yajl only goes into Requires.private: the public
# headers expose no yajl type, so shared-library users need neither its headers nor its .pc, while static links
# (pkg-config --static) still get -lyajl.
$(FIOR_PC): mk/install.mk $(FIOR_HEADER) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	{ echo 'prefix=$(PREFIX)'; \
	  echo 'exec_prefix=$${prefix}'; \
	  echo 'libdir=$(LIBDIR)' | sed 's|^libdir=$(PREFIX)|libdir=$${exec_prefix}|'; \
	  echo 'includedir=$(INCLUDEDIR)' | sed 's|^includedir=$(PREFIX)|includedir=$${prefix}|'; \
	  echo ''; \
	  echo 'Name: libfioreport'; \
	  echo 'Description: read fio outputs and etcd-perf logs and judge fdatasync latency the way etcd needs it'; \
	  echo 'Version: $(FIOR_VERSION)'; \
	  echo 'Cflags: -I$${includedir}'; \
	  echo 'Libs: -L$${libdir} -lfioreport'; \
	  echo 'Requires.private: yajl'; \
	  echo 'Libs.private: -lm'; \
	} > $@.tmp && mv $@.tmp $@

ALL_TARGETS += $(FIOR_PC)

install: all $(FIOR_PC)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(ENGINEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 755 $(ETCD_FIO_BIN) $(DESTDIR)$(BINDIR)/etcd-fio
	$(INSTALL) -m 755 $(ENGINE_SO) $(DESTDIR)$(ENGINEDIR)/libetcdwal.so
	$(INSTALL) -m 755 $(FIOR_SO).$(FIOR_SOVER) $(DESTDIR)$(LIBDIR)/libfioreport.so.$(FIOR_SOVER)
	ln -sf libfioreport.so.$(FIOR_SOVER) $(DESTDIR)$(LIBDIR)/libfioreport.so
	$(INSTALL) -m 644 $(FIOR_A) $(DESTDIR)$(LIBDIR)/libfioreport.a
	$(INSTALL) -m 644 libreport/include/fioreport.h $(DESTDIR)$(INCLUDEDIR)/fioreport.h
	$(INSTALL) -m 644 libreport/include/fioreport_monitor.h $(DESTDIR)$(INCLUDEDIR)/fioreport_monitor.h
	$(INSTALL) -m 644 $(FIOR_PC) $(DESTDIR)$(PKGCONFDIR)/libfioreport.pc
	$(INSTALL) -m 644 man/etcd-fio.1 $(DESTDIR)$(MANDIR)/man1/etcd-fio.1
	$(INSTALL) -m 644 man/libfioreport.3 $(DESTDIR)$(MANDIR)/man3/libfioreport.3
	$(INSTALL) -m 644 man/etcdwal.7 $(DESTDIR)$(MANDIR)/man7/etcdwal.7

# Removes only what install put there; the directories are left unless they end up empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/etcd-fio $(DESTDIR)$(ENGINEDIR)/libetcdwal.so \
	  $(DESTDIR)$(LIBDIR)/libfioreport.so.$(FIOR_SOVER) $(DESTDIR)$(LIBDIR)/libfioreport.so \
	  $(DESTDIR)$(LIBDIR)/libfioreport.a $(DESTDIR)$(INCLUDEDIR)/fioreport.h \
	  $(DESTDIR)$(INCLUDEDIR)/fioreport_monitor.h $(DESTDIR)$(PKGCONFDIR)/libfioreport.pc \
	  $(DESTDIR)$(MANDIR)/man1/etcd-fio.1 \
	  $(DESTDIR)$(MANDIR)/man3/libfioreport.3 $(DESTDIR)$(MANDIR)/man7/etcdwal.7
	-rmdir $(DESTDIR)$(ENGINEDIR) 2>/dev/null
